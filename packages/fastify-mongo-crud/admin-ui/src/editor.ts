// One document: edited as a form generated from its model or as raw JSON, saved as a JSON Patch under the
// ETag it was read with (If-Match), created with POST, deleted after a confirmation. A 412 shows what changed
// meanwhile and offers to reload it; a 422 shows each message at its field.
import { errorOf, type Issue, request } from './api.js'
import { confirmAction } from './dialog.js'
import { display, fill, h, uid } from './dom.js'
import { schemaForm } from './form.js'
import { changedFields, type Doc, diff } from './json-patch.js'
import type { RouterInfo } from './openapi.js'
import { propertiesOf } from './schema.js'

export interface EditorHost {
  router: RouterInfo
  /** A document as the server answered it (saved, created, or read again). */
  shown(doc: Doc): void
  deleted(doc: Doc): void
  closed(): void
}

type State = { kind: 'edit', doc: Doc, etag: string } | { kind: 'create' }

/** The URL of a document: the item path with the field its parameter names (`id`, or the identifier field). */
export function itemUrl(router: RouterInfo, doc: Doc): string {
  return router.itemPath!.replace(`{${router.itemParam}}`, encodeURIComponent(String(doc[router.itemParam] ?? doc['id'])))
}

/** Reads a document and its ETag; `problem` tells why not. */
export async function readDocument(router: RouterInfo, doc: Doc): Promise<{ doc: Doc, etag: string } | { problem: string }> {
  const response = await request(itemUrl(router, doc))
  if (!response.ok) return { problem: (await errorOf(response)).text }
  return { doc: (await response.json()) as Doc, etag: response.headers.get('etag') ?? '' }
}

const withoutId = ({ id: _id, ...rest }: Doc): Doc => rest

/** The fields the form edits: for a document, those both its PATCH takes and the output model shows. */
function formFor(router: RouterInfo, state: State) {
  const base = router.createSchema ?? router.patchSchema ?? {}
  if (state.kind === 'create') return schemaForm(base)
  const shown = propertiesOf(router.outSchema).properties
  const patchable = Object.keys(propertiesOf(router.patchSchema).properties).filter((name) => name in shown)
  return schemaForm(base, new Set(patchable))
}

export function openEditor(container: HTMLElement, host: EditorHost, initial: State): void {
  let state = initial
  let form = formFor(host.router, state)
  let asJson = false
  const titleId = uid('editor-title')
  const title = h('h2', { id: titleId })
  const jsonId = uid('json')
  const json = h('textarea', { id: jsonId, rows: 16, spellcheck: 'false', class: 'json' })
  const body = h('div', { class: 'editor-body' })
  const alert = h('div', { class: 'error', role: 'alert' })
  const status = h('p', { class: 'status', role: 'status' })
  const formTab = h('button', { type: 'button', 'aria-pressed': 'true' }, 'Form')
  const jsonTab = h('button', { type: 'button', 'aria-pressed': 'false' }, 'JSON')
  const original = (): Doc => (state.kind === 'edit' ? withoutId(state.doc) : {})
  /** The document as the visible editor says (the JSON box, or the form over the original's other fields). */
  const edited = (): Doc => {
    if (!asJson) return form.read(original())
    let parsed: unknown
    try {
      parsed = JSON.parse(json.value)
    } catch {
      throw new Error('The JSON is not valid')
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('The JSON must be an object')
    return parsed as Doc
  }
  const showJson = (doc: Doc) => {
    json.value = JSON.stringify(doc, null, 2)
  }
  const render = () => {
    fill(title, state.kind === 'edit' ? `Document ${display(state.doc['id'])}` : 'New document')
    form.fill(original())
    showJson(original())
    fill(body, asJson ? h('div', { class: 'field' }, h('label', { for: jsonId }, 'Document as JSON'), json) : form.element)
    formTab.setAttribute('aria-pressed', String(!asJson))
    jsonTab.setAttribute('aria-pressed', String(asJson))
    deleteButton.hidden = state.kind !== 'edit' || !host.router.canDelete
    fill(saveButton, state.kind === 'create' ? 'Create' : 'Save')
    saveButton.hidden = state.kind === 'edit' && host.router.patchSchema === undefined
  }
  const switchTo = (toJson: boolean) => {
    if (toJson === asJson) return
    try {
      const doc = edited()
      if (toJson) {
        const merged = { ...original() }
        for (const name of form.names) delete merged[name]
        showJson({ ...merged, ...doc })
      } else form.fill(doc)
    } catch (error) {
      return fill(alert, (error as Error).message)
    }
    asJson = toJson
    fill(alert)
    fill(body, asJson ? h('div', { class: 'field' }, h('label', { for: jsonId }, 'Document as JSON'), json) : form.element)
    formTab.setAttribute('aria-pressed', String(!asJson))
    jsonTab.setAttribute('aria-pressed', String(asJson))
  }
  formTab.addEventListener('click', () => switchTo(false))
  jsonTab.addEventListener('click', () => switchTo(true))

  const load = (doc: Doc, etag: string, said: string) => {
    const created = state.kind === 'create'
    state = { kind: 'edit', doc, etag }
    if (created) form = formFor(host.router, state)
    form.clearErrors()
    fill(alert)
    render()
    status.textContent = said
    host.shown(doc)
  }
  const invalid = (issues: Issue[], text: string) => {
    const rest: string[] = []
    for (const issue of issues) {
      const [where, name] = issue.loc
      if (asJson || where !== 'body' || typeof name !== 'string' || !form.showError(name, issue.msg)) rest.push(`${issue.loc.slice(1).join('.') || 'body'}: ${issue.msg}`)
    }
    fill(alert, h('p', {}, `Not saved: ${issues.length === 0 ? text : 'the server refused some values (422).'}`), rest.length > 0 ? h('ul', {}, ...rest.map((line) => h('li', {}, line))) : null)
  }
  /** 412: what changed since the version this edit started from, and the offer to reload it. */
  const stale = async (doc: Doc) => {
    const current = await readDocument(host.router, doc)
    if ('problem' in current) return fill(alert, h('p', {}, `Not saved: the document changed and cannot be read now (${current.problem}).`))
    const changes = changedFields(doc, current.doc).map(([name, before, after]) => h('li', {}, `${name}: ${before === undefined ? '(none)' : display(before)} → ${after === undefined ? '(none)' : display(after)}`))
    fill(alert,
      h('p', {}, 'Not saved: the document changed since you opened it (412). Changed meanwhile:'),
      h('ul', { class: 'changes' }, ...changes),
      h('button', { type: 'button', class: 'primary', onclick: () => load(current.doc, current.etag, 'Reloaded: this is the current version') }, 'Reload'))
  }
  const answer = async (response: Response, doc: Doc | undefined, said: string) => {
    if (response.ok) return load((await response.json()) as Doc, response.headers.get('etag') ?? '', said)
    if (response.status === 412 && doc !== undefined) return stale(doc)
    const { text, issues } = await errorOf(response)
    if (response.status === 422) return invalid(issues, text)
    fill(alert, h('p', {}, `Not saved: ${text}`))
  }
  const save = async () => {
    form.clearErrors()
    fill(alert)
    status.textContent = ''
    let doc: Doc
    try {
      doc = edited()
    } catch (error) {
      return fill(alert, h('p', {}, (error as Error).message))
    }
    if (state.kind === 'create') return answer(await request(host.router.prefix, { method: 'POST', body: doc }), undefined, 'Created')
    const operations = diff(original(), doc, asJson ? undefined : form.names)
    if (operations.length === 0) return fill(status, 'Nothing to save: no field changed')
    const current = state
    const response = await request(itemUrl(host.router, current.doc), { method: 'PATCH', body: operations, contentType: 'application/json-patch+json', headers: { 'if-match': current.etag } })
    await answer(response, current.doc, 'Saved')
  }
  const remove = async () => {
    if (state.kind !== 'edit') return
    const doc = state.doc
    if (!(await confirmAction('Delete this document?', `Document ${display(doc['id'])} will be deleted.`, 'Delete'))) return
    const response = await request(itemUrl(host.router, doc), { method: 'DELETE', headers: { 'if-match': state.etag } })
    if (response.ok) return host.deleted(doc)
    if (response.status === 412) return stale(doc)
    fill(alert, h('p', {}, `Not deleted: ${(await errorOf(response)).text}`))
  }
  const deleteButton = h('button', { type: 'button', class: 'danger', onclick: () => void remove() }, 'Delete')
  const saveButton = h('button', { type: 'button', class: 'primary', onclick: () => void save() }, 'Save')
  const section = h('section', { class: 'editor', 'aria-labelledby': titleId },
    title,
    h('div', { class: 'tabs', role: 'group', 'aria-label': 'Edit as' }, formTab, jsonTab),
    body,
    alert,
    status,
    h('div', { class: 'buttons' },
      saveButton,
      deleteButton,
      h('button', { type: 'button', onclick: () => host.closed() }, 'Close')))
  render()
  fill(container, section)
  container.hidden = false
  title.setAttribute('tabindex', '-1')
  title.focus()
}
