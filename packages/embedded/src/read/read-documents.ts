import { Query } from 'mingo/query'
import { decodeInForm } from '../bson/bson-codec.js'
import type { BsonFieldReader } from '../bson/bson-field-reader.js'
import { AS_STORED, StoredBytes, type StoredFindOptions } from '../bson/stored-bytes.js'
import { inForm, type PromoteOptions, valueFormOf } from '../bson/value-form.js'
import { checkFieldPaths } from '../check-field-path.js'
import { toCollation } from '../collation/collation.js'
import type { Document, FindOptions } from '../document.js'
import { asServerError } from '../errors.js'
import { isNumericObject } from '../numbers/numeric-type.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import type { Deadline } from '../pace/deadline.js'
import { PAUSE, type Paced, type Pause } from '../pace/pause.js'
import { compileFilter, filterCollation, type Matcher } from '../query/compile-filter.js'
import { BsonArena } from '../sort/bson-arena.js'
import { ChunkedList } from '../sort/chunked-list.js'
import { SortedCollector, type SortedValues, type SortSpec, type ValueOrder } from '../sort/sort-documents.js'
import { DEFAULT_SORT_MEMORY_LIMIT_BYTES, type SortMemory, SortMemoryLimit } from '../sort/sort-memory-limit.js'
import { toFindSort } from '../sort/sort-spec.js'
import { exactCopy } from '../storage/pooled-copy.js'
import type { CollectionStorage } from '../storage/storage.js'
import { type ColumnEntry, fieldColumn } from './field-columns.js'
import { fieldsToRead } from './fields-to-read.js'
import { countExamined, decodeStored, iterate, type StoredDocument, scanStored } from './scan-documents.js'

/** Where a read finds its documents: the storage, and the index lookups (collection-core.ts). */
interface ReadSource {
  readonly storage: CollectionStorage
  pointKeys(filter: Document): Iterable<string> | undefined
}

/**
 * What the sorted matches are: their BSON bytes (or their places in the sort's arena), what the sort
 * charged to its memory limit for each (same places; unused with an arena), and the arena holding
 * those the sort did not keep one by one.
 */
interface Sorted {
  documents: SortedValues<Uint8Array | number>
  arena: BsonArena | undefined
}

/**
 * The find pipeline: filter, then sort, skip, limit, projection. Unsorted reads stream;
 * sorted reads collect, keeping only the top skip + limit when a limit is given, within
 * `sortMemory` (the engine's limits: one sort's, and all sorts' together). Filter and sort read only
 * the fields they need from the stored bytes (fields-to-read.ts) when they can: a document is
 * decoded in full only to be returned.
 *
 * Paced (pause.ts): the scan, the sort and the decoding of what is returned all run in slices, with
 * a PAUSE between two, so that a read of any size leaves the event loop free.
 */
export function* readDocuments(
  source: ReadSource,
  filter: Document,
  options: FindOptions,
  deadline: Deadline,
  sortMemory: SortMemory = { limitBytes: DEFAULT_SORT_MEMORY_LIMIT_BYTES }
): Paced<Document> {
  const collation = toCollation(options.collation)
  const collated = filterCollation(filter, collation)
  const matches = compileFilter(filter, collated)
  const skip = Math.max(0, options.skip ?? 0)
  const limit = Math.abs(options.limit ?? 0) || Number.POSITIVE_INFINITY
  const emit = emitter(options)
  const sort = toFindSort(options.sort)
  const keys = collated ? undefined : source.pointKeys(filter)
  const reader = fieldsToRead(filter, sort)
  if (sort === undefined) {
    // Every key matches an empty filter: the keys a page skips are passed over unread (a deep page of
    // a sort an index serves read and copied every document it skipped).
    const unread = keys !== undefined && Object.keys(filter).length === 0 ? skip : 0
    yield* page(scanStored(source.storage, keys, matches, deadline, reader, undefined, unread), skip - unread, limit, emit, deadline)
    return undefined
  }
  // Owned here, so that it lives as long as the sorted documents it counts are held.
  const memory = new SortMemoryLimit(sortMemory)
  try {
    const order = { memory, order: collation?.compareValues }
    const sorted = yield* sortStored(source.storage, keys, matches, deadline, reader, sort, skip + limit, order)
    yield* page(handOut(sorted, memory), skip, limit, emit, deadline)
  } finally {
    memory.release()
  }
  return undefined
}

/** Skip, limit and projection over stored matches (pauses passed on); skipped documents are never decoded. */
function* page(found: Iterable<StoredDocument | Pause>, skip: number, limit: number, emit: (stored: StoredDocument) => Document, deadline: Deadline): Paced<Document> {
  let skipped = 0
  let returned = 0
  for (const stored of found) {
    if (stored === PAUSE) {
      yield PAUSE
      continue
    }
    if (skipped < skip) {
      skipped++
      continue
    }
    deadline.tick()
    yield emit(stored)
    // Stop before pulling (and decoding) one document more than needed.
    if (++returned >= limit) break
    if (deadline.due()) yield PAUSE
  }
  return undefined
}

/** The sorted documents one by one, each given back to the memory limit (and dropped) as it is handed out. */
function* handOut({ documents, arena }: Sorted, memory: SortMemoryLimit): Generator<StoredDocument, undefined> {
  for (let i = 0; i < documents.length; i++) {
    const value = documents.take(i)
    // Bytes in the arena are freed with it, at the end: they stay counted until then.
    if (arena === undefined) memory.release(documents.size(i))
    yield { bytes: typeof value === 'number' ? arena!.get(value) : value, doc: {}, whole: false }
  }
  return undefined
}

interface SortOptions {
  memory: SortMemoryLimit
  order: ValueOrder | undefined
}

/**
 * The top `keep` matches in sort order, holding their bytes (not decoded documents) meanwhile.
 * The scan copies only the matches that can still make the cut. Over a collection's field column
 * when one serves; a write committed while that sort paused makes it start again over storage.
 */
function* sortStored(
  storage: CollectionStorage,
  keys: Iterable<string> | undefined,
  matches: Matcher,
  deadline: Deadline,
  reader: BsonFieldReader | undefined,
  sort: SortSpec,
  keep: number,
  options: SortOptions
): Generator<Pause, Sorted> {
  const column = keys === undefined && reader !== undefined ? yield* fieldColumn(storage, reader, deadline) : undefined
  if (column !== undefined) {
    const sorted = yield* sortColumn(storage, column, matches, deadline, sort, keep, options)
    if (sorted !== undefined) return sorted
    options.memory.release()
  }
  // A sort that keeps every match keeps their bytes end to end (bson-arena.ts); a top-k drops most
  // of what it takes, so it keeps each in a copy of its own, dropped with it.
  const arena = Number.isFinite(keep) ? undefined : new BsonArena()
  const collector = new SortedCollector<Uint8Array | number>(sort, keep, options)
  if (arena !== undefined && keys === undefined && reader !== undefined) yield* reserveMatches(storage, matches, deadline, reader, collector, options.memory)
  const wanted = (doc: Document) => collector.competes(doc)
  const copy = (bytes: Uint8Array) => (arena === undefined ? exactCopy(bytes) : arena.add(bytes))
  for (const found of scanStored(storage, keys, matches, deadline, reader, wanted)) {
    if (found === PAUSE) yield PAUSE
    else if (collector.offer(found.doc, () => copy(found.bytes), () => found.bytes.byteLength)) yield* collector.cut(deadline)
  }
  return { documents: yield* collector.sorted(deadline), arena }
}

/**
 * Reserves at once what an unbounded sort over the whole collection will hold (sort-memory-limit.ts),
 * counted by a first walk that keeps nothing: a sort refused for lack of memory (365 while other sorts
 * hold it, 292 past its own limit) is refused before it has copied anything. Refused half-way instead,
 * each try left megabytes of copies behind (bench/event-loop.ts: eight clients retrying unbounded sorts).
 * Not counted as examined: the sort's own walk counts the documents.
 */
function* reserveMatches(
  storage: CollectionStorage,
  matches: Matcher,
  deadline: Deadline,
  reader: BsonFieldReader,
  collector: SortedCollector<unknown>,
  memory: SortMemoryLimit
): Generator<Pause, void> {
  let bytes = 0
  const walk = storage.visit<Pause>((view) => {
    deadline.tick()
    const doc = reader.read(view)
    if (matches(doc)) bytes += collector.chargeFor(doc, view.length)
    return deadline.due() ? PAUSE : undefined
  })
  for (const _ of iterate(walk)) yield PAUSE
  memory.reserve(bytes)
}

/**
 * sortStored over a collection's field column (field-columns.ts): the top `keep` found in memory,
 * then only those read from storage. The column is exact at one version of the collection: when a
 * write moves it while the sort pauses, the answer would mix two versions, so the sort gives up
 * (undefined) and the caller sorts from storage instead.
 */
function* sortColumn(
  storage: CollectionStorage,
  column: readonly ColumnEntry[],
  matches: Matcher,
  deadline: Deadline,
  sort: SortSpec,
  keep: number,
  options: SortOptions
): Generator<Pause, Sorted | undefined> {
  const version = storage.version()
  const moved = () => storage.version() !== version
  const collector = new SortedCollector<string>(sort, keep, options)
  for (const entry of column) {
    deadline.tick()
    if (matches(entry.doc) && collector.offer(entry.doc, () => entry.key, () => entry.size)) yield* collector.cut(deadline)
    if (deadline.due()) {
      yield PAUSE
      if (moved()) return undefined
    }
  }
  countExamined(column.length)
  const keys = yield* collector.sorted(deadline)
  const arena = new BsonArena()
  // Places in the arena: the sizes are not needed, the arena stays counted until the end.
  const places = new ChunkedList<number>()
  for (let i = 0; i < keys.length; i++) {
    if (moved()) return undefined
    deadline.tick()
    const bytes = storage.get(keys.take(i))
    if (bytes !== undefined) places.push(arena.add(bytes))
    if (deadline.due()) yield PAUSE
  }
  const documents = { length: places.length, take: (index: number) => places.get(index), size: () => 0 }
  return moved() ? undefined : { documents, arena }
}

/**
 * How a match leaves the read: decoded and projected, its numbers in the form the read asks for
 * (value-form.ts: the driver's promotion by default, straight from the bytes when nothing reshapes
 * the document first); or, for the wire server (AS_STORED, no projection), as its stored bytes,
 * copied (a sort's arena is reused once the read ends).
 */
function emitter(options: StoredFindOptions & PromoteOptions): (stored: StoredDocument) => Document {
  const hasProjection = options.projection !== undefined && Object.keys(options.projection).length > 0
  if (options[AS_STORED] && !hasProjection) return (stored) => new StoredBytes(exactCopy(stored.bytes)) as unknown as Document
  const form = valueFormOf(options)
  if (!hasProjection) return (stored) => (stored.whole ? inForm(stored.doc, form) : decodeInForm(stored.bytes, form))
  const project = compileProjection(options.projection)
  // Fields kept or dropped read no value: such a projection may work on the document in its final form.
  if (isFieldProjection(options.projection!)) return (stored) => project(stored.whole ? inForm(stored.doc, form) : decodeInForm(stored.bytes, form))
  return (stored) => inForm(project(decodeStored(stored)), form)
}

/** A projection that only keeps or drops fields (`{ a: 1, b: 0 }`): no expression, no operator. */
function isFieldProjection(projection: Document): boolean {
  return Object.values(projection).every((value) => typeof value === 'number' || typeof value === 'boolean')
}

export function compileProjection(projection: Document | undefined): (doc: Document) => Document {
  if (!projection || Object.keys(projection).length === 0) return (doc) => doc
  checkFieldPaths(projection)
  projection = projectionFlags(projection)
  const query = new Query({}, MINGO_OPTIONS)
  return (doc) => {
    try {
      const projected = query.find<Document>([doc], projection).next() as Document
      // The server keeps `_id` first; mingo appends the fields it includes before it.
      if (!Object.hasOwn(projected, '_id')) return projected
      const { _id, ...rest } = projected
      return { _id, ...rest }
    } catch (error) {
      throw asServerError(error)
    }
  }
}

/**
 * The projection with a number of any BSON type as a keep (non-zero) or drop (zero) flag, as
 * MongoDB reads one: a client may send `{ a: 0.0 }` or `{ a: NumberLong(1) }`, which mingo would
 * take for values to set.
 */
function projectionFlags(projection: Document): Document {
  let out: Document | undefined
  for (const [field, value] of Object.entries(projection)) {
    if (!isNumericObject(value)) continue
    out ??= { ...projection }
    out[field] = Number(value)
  }
  return out ?? projection
}
