import type { BsonFieldReader } from '../bson/bson-field-reader.js'
import type { Document } from '../document.js'
import type { Deadline } from '../pace/deadline.js'
import { PAUSE, type Pause } from '../pace/pause.js'
import type { CollectionStorage } from '../storage/storage.js'
import { iterate } from './scan-documents.js'

/** One document of a column: its storage key, the fields a reader takes from it, its BSON size. */
export interface ColumnEntry {
  readonly key: string
  readonly doc: Document
  readonly size: number
}

interface Column {
  readonly storage: CollectionStorage
  readonly fields: string
  readonly version: number
  readonly entries: ColumnEntry[]
  readonly bytes: number
}

/** What all columns together may hold (estimated), and one column at most: past it, scans read storage. */
const COLUMNS_BUDGET_BYTES = 64 * 1024 * 1024
const COLUMN_MAX_BYTES = 16 * 1024 * 1024
/** Estimated bytes of one entry besides its key: the objects, the array slot, a small field or two. */
const ENTRY_OVERHEAD_BYTES = 120

const byStorage = new WeakMap<CollectionStorage, Map<string, Column>>()
/** Collections found too large for one column: they are not tried again (each try reads storage). */
const tooLarge = new WeakSet<CollectionStorage>()
/** The columns being built (a build pauses: another read may come meanwhile), at the version they read. */
const inFlight = new WeakMap<CollectionStorage, { version: number, fields: Set<string> }>()
/** Every column held, least recently used first. */
const recency = new Set<Column>()
let heldBytes = 0

/**
 * The fields `reader` takes from every document of a collection, kept in memory between reads
 * (a bounded cache): a sort without an index then walks this column instead of reading every
 * document from storage, and reads only the documents it returns.
 *
 * Exact, never stale: a column is built from storage reads at one `storage.version()` and served
 * only while the version is the same (any write, then its commit, moves it), never while a write
 * is uncommitted. A build pauses between slices of its walk (pause.ts): a write committed during a
 * pause moves the version, and the build is then dropped (undefined: the caller scans storage).
 * Undefined too when no column can serve: a write in flight, or a collection too large for the budget.
 */
export function* fieldColumn(storage: CollectionStorage, reader: BsonFieldReader, deadline: Deadline): Generator<Pause, readonly ColumnEntry[] | undefined> {
  const version = storage.version()
  if (version === undefined || tooLarge.has(storage)) return undefined
  const fields = reader.fields.join('\0')
  const held = byStorage.get(storage)?.get(fields)
  if (held !== undefined) {
    forget(held)
    if (held.version === version) {
      remember(held)
      return held.entries
    }
  }
  // One build at a time per column: a read that comes while another builds it scans storage instead.
  const building = inFlight.get(storage)
  if (building?.fields.has(fields) && building.version === version) return undefined
  const marker = building?.version === version ? building : { version, fields: new Set<string>() }
  inFlight.set(storage, marker)
  marker.fields.add(fields)
  let entries: Built
  try {
    entries = yield* build(storage, reader, deadline, version)
  } finally {
    marker.fields.delete(fields)
  }
  if (entries === 'too large') {
    tooLarge.add(storage)
    return undefined
  }
  // The build read at `version` only if no write moved it meanwhile.
  if (entries === 'moved' || storage.version() !== version) return undefined
  remember({ storage, fields, version, entries: entries.list, bytes: entries.bytes })
  return entries.list
}

/** A build's outcome: the column, or why there is none (too large to keep; a write moved the version meanwhile). */
type Built = { list: ColumnEntry[], bytes: number } | 'too large' | 'moved'

function* build(
  storage: CollectionStorage,
  reader: BsonFieldReader,
  deadline: Deadline,
  version: number
): Generator<Pause, Built> {
  const list: ColumnEntry[] = []
  let bytes = 0
  for (const [key, found] of iterate(
    storage.visit((view) => {
      deadline.tick()
      return { doc: reader.read(view), size: view.length }
    })
  )) {
    list.push({ key, doc: found.doc, size: found.size })
    bytes += 2 * key.length + ENTRY_OVERHEAD_BYTES + fieldBytes(found.doc, found.size)
    // Too large to keep: the caller scans storage instead (stopping here reads no further).
    if (bytes > COLUMN_MAX_BYTES) return 'too large'
    if (deadline.due()) {
      yield PAUSE
      if (storage.version() !== version) return 'moved'
    }
  }
  return { list, bytes }
}

/** Estimated bytes of the fields kept: strings as UTF-16, anything else up to the document's own BSON size. */
function fieldBytes(doc: Document, size: number): number {
  let bytes = 0
  for (const value of Object.values(doc)) bytes += typeof value === 'string' ? 2 * value.length : typeof value === 'object' && value !== null ? size : 16
  return bytes
}

function remember(column: Column): void {
  let columns = byStorage.get(column.storage)
  if (columns === undefined) {
    columns = new Map()
    byStorage.set(column.storage, columns)
  }
  columns.set(column.fields, column)
  recency.add(column)
  heldBytes += column.bytes
  for (const oldest of recency) {
    if (heldBytes <= COLUMNS_BUDGET_BYTES) break
    forget(oldest)
  }
}

function forget(column: Column): void {
  if (!recency.delete(column)) return
  heldBytes -= column.bytes
  const columns = byStorage.get(column.storage)
  if (columns?.get(column.fields) === column) columns.delete(column.fields)
}

