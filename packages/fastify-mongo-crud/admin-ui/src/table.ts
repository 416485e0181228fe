// The list's table: one row per document, its cells as text, a checkbox to select it and a button to open it.
// Rows flash when a document changes, and are found again by their key (what the item URL and the feed's
// events name: `id`, or the router's identifier field) when the feed tells of them.
import { display, fill, h } from './dom.js'
import type { Doc } from './json-patch.js'

export interface Sort {
  field: string
  dir: 'ASC' | 'DESC'
}

export interface TableHandlers {
  open(doc: Doc): void
  sort(field: string): void
  selectionChanged(): void
}

const FLASH_MS = 2_000

export class DocumentTable {
  readonly element = h('table', { class: 'documents' })
  readonly selected = new Set<string>()
  readonly #rows = new Map<string, { tr: HTMLTableRowElement, doc: Doc }>()
  readonly #body = h('tbody')
  #columns: string[] = []
  readonly #handlers: TableHandlers
  readonly #key: (doc: Doc) => string

  constructor(handlers: TableHandlers, key: (doc: Doc) => string) {
    this.#handlers = handlers
    this.#key = key
  }

  get size(): number {
    return this.#rows.size
  }

  /** Shows `docs` under `columns` (`id` first), `caption` above, headers of `sortable` columns as buttons. */
  show(docs: Doc[], columns: string[], sortable: string[], sort: Sort | undefined, caption: string): void {
    this.#columns = columns
    this.#rows.clear()
    this.selected.clear()
    const all = h('input', { type: 'checkbox', 'aria-label': 'Select every row of this page', onchange: () => {
      for (const [key, row] of this.#rows) {
        const box = row.tr.querySelector('input[type=checkbox]') as HTMLInputElement
        box.checked = all.checked
        if (all.checked) this.selected.add(key)
        else this.selected.delete(key)
      }
      this.#handlers.selectionChanged()
    } })
    const headers = columns.map((column) => {
      const sorted = sort?.field === column ? (sort.dir === 'ASC' ? 'ascending' : 'descending') : undefined
      const arrow = sorted === undefined ? '' : sorted === 'ascending' ? ' ▲' : ' ▼'
      const content = sortable.includes(column) ? h('button', { type: 'button', class: 'sort', onclick: () => this.#handlers.sort(column) }, column, arrow) : column
      return h('th', { scope: 'col', 'aria-sort': sorted, 'data-column': column }, content)
    })
    fill(this.#body)
    for (const doc of docs) this.#body.append(this.#row(doc))
    fill(this.element, h('caption', {}, caption), h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, all), ...headers)), this.#body)
  }

  #cells(tr: HTMLTableRowElement, doc: Doc): void {
    const id = String(doc['id'])
    const key = this.#key(doc)
    const select = h('input', { type: 'checkbox', 'aria-label': `Select ${id}`, checked: this.selected.has(key), onchange: () => {
      if (select.checked) this.selected.add(key)
      else this.selected.delete(key)
      this.#handlers.selectionChanged()
    } })
    fill(tr,
      h('td', {}, select),
      ...this.#columns.map((column) => column === 'id'
        ? h('th', { scope: 'row' }, h('button', { type: 'button', class: 'open', onclick: () => this.#handlers.open(this.#rows.get(key)?.doc ?? doc) }, id))
        : h('td', { 'data-column': column }, display(doc[column]))))
  }

  #row(doc: Doc): HTMLTableRowElement {
    const tr = h('tr', { 'data-id': String(doc['id']) })
    this.#cells(tr, doc)
    this.#rows.set(this.#key(doc), { tr, doc })
    return tr
  }

  /** A document changed: its row shows it and flashes; a new one is put first when `insert`. */
  upsert(doc: Doc, insert: boolean): boolean {
    const row = this.#rows.get(this.#key(doc))
    let tr: HTMLTableRowElement
    if (row !== undefined) {
      row.doc = doc
      tr = row.tr
      this.#cells(tr, doc)
    } else if (insert) {
      tr = this.#row(doc)
      tr.classList.add('new')
      this.#body.prepend(tr)
    } else return false
    tr.classList.remove('flash')
    void tr.offsetWidth
    tr.classList.add('flash')
    setTimeout(() => tr.classList.remove('flash'), FLASH_MS)
    return row === undefined
  }

  /**
   * Removes the row of the document `key` names, or whose `id` it is (a delete event names the document by its
   * `id` on a router with an identifier field); false when none shows it.
   */
  remove(key: string): boolean {
    if (!this.#rows.has(key)) key = [...this.#rows].find(([, row]) => String(row.doc['id']) === key)?.[0] ?? key
    const row = this.#rows.get(key)
    if (row === undefined) return false
    row.tr.remove()
    this.#rows.delete(key)
    this.selected.delete(key)
    this.#handlers.selectionChanged()
    return true
  }
}
