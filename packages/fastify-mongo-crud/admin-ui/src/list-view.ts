// A router's page: its list (filter, sort, keyset pages, total, field picker, selection and batch delete),
// kept live by its change feed, the document editor beside it, and the groups chart.
import { errorOf, request } from './api.js'
import { confirmAction } from './dialog.js'
import { fill, h, select } from './dom.js'
import { type EditorHost, openEditor, readDocument } from './editor.js'
import { subscribe } from './events.js'
import { type Filter, filterBuilder } from './filters.js'
import { groupsView } from './groups.js'
import type { Doc } from './json-patch.js'
import type { RouterInfo } from './openapi.js'
import { propertiesOf } from './schema.js'
import { DocumentTable, type Sort } from './table.js'

const PAGE_SIZES = ['10', '20', '50', '100']

/** The URL of `Link: <url>; rel="next"`, if the answer has one. */
export function nextLink(header: string | null): string | undefined {
  return header?.match(/<([^>]*)>\s*;\s*rel="?next"?/)?.[1]
}

interface ListState {
  sort: Sort | undefined
  limit: number
  filter: Filter | undefined
  /** The fields asked for (`fields=`); undefined: all of them. */
  fields: string[] | undefined
  /** The pages visited since the first, the current one last. */
  pages: string[]
  next: string | undefined
  total: number | undefined
}

export function listView(container: HTMLElement, router: RouterInfo): { close(): void } {
  const allFields = Object.keys(propertiesOf(router.outSchema).properties).filter((name) => name !== 'id')
  const state: ListState = {
    sort: router.sortable.includes('id') ? { field: 'id', dir: 'DESC' } : undefined,
    limit: 20,
    filter: undefined,
    fields: undefined,
    pages: [],
    next: undefined,
    total: undefined,
  }
  const problem = h('p', { class: 'error', role: 'alert' })
  const notice = h('p', { class: 'status', role: 'status' })
  const count = h('p', { class: 'count' })
  const live = h('p', { class: 'live', role: 'status' })
  const applied = h('code', {}, 'none')
  const editorBox = h('aside', { class: 'editor-box', hidden: true })
  const deleteSelected = h('button', { type: 'button', class: 'danger', disabled: true, hidden: !router.batch || !router.canDelete, onclick: () => void removeSelected() }, 'Delete selected')
  const previous = h('button', { type: 'button', disabled: true, onclick: () => void go(state.pages.length - 2) }, 'Previous page')
  const nextButton = h('button', { type: 'button', disabled: true, onclick: () => void go(state.pages.length) }, 'Next page')
  const pageLabel = h('span', { class: 'page' })
  /** What names a document in its URL, a batch operation and the feed's events: `id`, or the identifier field. */
  const keyOf = (doc: Doc) => String(doc[router.itemParam] ?? doc['id'])
  const table = new DocumentTable({
    open: (doc) => void open(doc),
    sort: (field) => {
      state.sort = { field, dir: state.sort?.field === field && state.sort.dir === 'ASC' ? 'DESC' : 'ASC' }
      void go(0)
    },
    selectionChanged: () => {
      deleteSelected.disabled = table.selected.size === 0
      fill(deleteSelected, table.selected.size === 0 ? 'Delete selected' : `Delete selected (${table.selected.size})`)
    },
  }, keyOf)
  const showCount = () => fill(count, state.total === undefined ? '' : `${state.total} ${state.total === 1 ? 'document' : 'documents'}`)

  const firstPage = (): string => {
    const params = new URLSearchParams({ limit: String(state.limit) })
    if (state.sort !== undefined) {
      params.set('sort_by', state.sort.field)
      params.set('order_by', state.sort.dir)
    }
    if (state.filter !== undefined) params.set('filters', JSON.stringify(state.filter))
    // The identifier field comes along: rows are found by it (it is shown only when picked).
    if (state.fields !== undefined) {
      const asked = [...new Set([...(router.itemParam === 'id' ? [] : [router.itemParam]), ...state.fields])]
      params.set('fields', asked.length === 0 ? 'id' : asked.join(','))
    }
    return `${router.prefix}?${params}`
  }
  /** Shows page `index` of those visited (index = their number: the next one, by the last one's Link). */
  const go = async (index: number) => {
    const url = index === 0 ? firstPage() : index < state.pages.length ? state.pages[index]! : state.next
    if (url === undefined) return
    const response = await request(url, { headers: { prefer: 'count=exact' } })
    if (!response.ok) {
      fill(problem, `The list could not be read: ${(await errorOf(response)).text}`)
      return table.show([], ['id'], [], undefined, router.label)
    }
    fill(problem)
    const docs = (await response.json()) as Doc[]
    state.pages = [...state.pages.slice(0, index), url]
    state.next = nextLink(response.headers.get('link'))
    const total = response.headers.get('x-total-count')
    state.total = total === null ? undefined : Number(total)
    table.show(docs, ['id', ...(state.fields ?? allFields)], router.sortable, state.sort, `${router.label}, page ${index + 1}`)
    previous.disabled = index === 0
    nextButton.disabled = state.next === undefined
    fill(pageLabel, `Page ${index + 1}`)
    showCount()
  }

  let feed: { close(): void } | undefined
  const follow = () => {
    feed?.close()
    if (!router.events) return
    const url = `${router.prefix}/_events${state.filter === undefined ? '' : `?filters=${encodeURIComponent(JSON.stringify(state.filter))}`}`
    feed = subscribe(url, {
      event: ({ type, data }) => {
        const { id, document } = JSON.parse(data) as { id: string, document?: Doc }
        if (type === 'delete') table.remove(String(id))
        else if (document !== undefined) table.upsert(document, type === 'create' && state.pages.length === 1)
        // A create or delete event is a document entering or leaving the list, whoever made it (this page too).
        if (state.total !== undefined && (type === 'create' || type === 'delete')) {
          state.total += type === 'create' ? 1 : -1
          showCount()
        }
      },
      status: (kind, text) => {
        live.className = `live ${kind}`
        fill(live, text)
      },
      gone: () => void go(0),
    })
  }

  const host: EditorHost = {
    router,
    shown: (doc) => void table.upsert(doc, state.pages.length === 1),
    deleted: (doc) => {
      if (table.remove(keyOf(doc)) && state.total !== undefined && !router.events) state.total -= 1
      showCount()
      host.closed()
      fill(notice, `Deleted ${String(doc['id'])}`)
    },
    closed: () => {
      fill(editorBox)
      editorBox.hidden = true
    },
  }
  const open = async (doc: Doc) => {
    const read = await readDocument(router, doc)
    if ('problem' in read) return fill(problem, `The document could not be read: ${read.problem}`)
    fill(problem)
    openEditor(editorBox, host, { kind: 'edit', doc: read.doc, etag: read.etag })
  }
  const removeSelected = async () => {
    const ids = [...table.selected]
    if (!(await confirmAction(`Delete ${ids.length} documents?`, `${ids.join(', ')} will be deleted, all or none.`, 'Delete'))) return
    const operations = ids.map((id) => ({ op: 'delete', id }))
    const response = await request(`${router.prefix}/_batch`, { method: 'POST', body: { operations } })
    if (!response.ok) {
      const index = ((await response.clone().json().catch(() => ({}))) as { index?: number }).index
      return fill(problem, `Nothing deleted: ${(await errorOf(response)).text}${index === undefined ? '' : ` (document ${ids[index]})`}`)
    }
    for (const id of ids) if (table.remove(id) && state.total !== undefined && !router.events) state.total -= 1
    showCount()
    fill(notice, `Deleted ${ids.length} documents`)
  }

  const fieldPicker = h('fieldset', { class: 'picker' }, h('legend', {}, 'Fields'),
    ...allFields.map((name) => h('label', {}, h('input', { type: 'checkbox', checked: true, value: name, onchange: (event: Event) => {
      const boxes = [...(event.target as HTMLElement).closest('fieldset')!.querySelectorAll('input')]
      const chosen = boxes.filter((box) => box.checked).map((box) => box.value)
      state.fields = chosen.length === allFields.length ? undefined : chosen
      void go(0)
    } }), ` ${name}`)))
  const filters = router.filterable === undefined || router.filterable.length === 0
    ? h('p', {}, 'This list takes no filters.')
    : filterBuilder(router.filterable, router.outSchema, (filter) => {
      state.filter = filter
      fill(applied, filter === undefined ? 'none' : JSON.stringify(filter))
      void go(0)
      follow()
    }).element
  const size = select({ id: 'page-size', onchange: (event: Event) => {
    state.limit = Number((event.target as HTMLSelectElement).value)
    void go(0)
  } }, PAGE_SIZES.map((value) => [value, value]), String(state.limit))
  const documents = h('div', { class: 'documents-view' },
    h('div', { class: 'list-column' },
      h('div', { class: 'query' }, filters, h('details', { class: 'fields' }, h('summary', {}, 'Fields shown'), fieldPicker)),
      h('p', { class: 'applied' }, 'Filter applied: ', applied),
      h('div', { class: 'toolbar' },
        router.createSchema === undefined ? null : h('button', { type: 'button', class: 'primary', onclick: () => openEditor(editorBox, host, { kind: 'create' }) }, 'New document'),
        deleteSelected, count, live),
      problem, notice,
      h('div', { class: 'table-box' }, table.element),
      h('div', { class: 'pager' }, previous, pageLabel, nextButton, h('label', { for: 'page-size' }, 'Page size'), size)),
    editorBox)
  const groups = router.groups === undefined ? null : groupsView(router, () => state.filter)
  const tabs = groups === null ? null : h('div', { class: 'tabs', role: 'group', 'aria-label': 'View' },
    h('button', { type: 'button', 'aria-pressed': 'true', onclick: (event: Event) => show(event, false) }, 'Documents'),
    h('button', { type: 'button', 'aria-pressed': 'false', onclick: (event: Event) => show(event, true) }, 'Groups'))
  const show = (event: Event, chart: boolean) => {
    for (const button of (event.target as HTMLElement).parentElement!.children) button.setAttribute('aria-pressed', String(button === event.target))
    documents.hidden = chart
    if (groups !== null) groups.hidden = !chart
  }
  if (groups !== null) groups.hidden = true
  fill(container, h('h2', {}, router.label, ' ', h('span', { class: 'prefix' }, router.prefix)), tabs, documents, groups)
  void go(0)
  follow()
  return { close: () => feed?.close() }
}
