import { leadingSort } from '../../aggregate/leading-sort.js'
import { AS_STORED, type StoredFindOptions } from '../../bson/stored-bytes.js'
import { AS_HELD, type PromoteOptions } from '../../bson/value-form.js'
import type { CollectionCore } from '../../collection/collection-core.js'
import { type Document, type FindOptions, isNonArrayObject } from '../../document.js'
import { EmbeddedCollection } from '../../embedded-collection.js'
import { ID_INDEX } from '../../indexes/index-catalog.js'
import { pointKeysOf } from '../../query/point-keys.js'
import { isSimpleCollation, type Plan } from '../../query/query-planner.js'
import { EmbeddedCursor } from '../../read/cursor.js'
import type { ReadStats } from '../../read/scan-documents.js'
import type { SortSpec } from '../../sort/sort-documents.js'
import { toFindSort, toSortSpec } from '../../sort/sort-spec.js'
import { badValue, typeMismatch, WireError } from '../wire-error.js'
import { optionalCollation } from './collation-option.js'
import { type CommandContext, type CommandHandler, collectionName, optionalDocument, requiredArray } from './command-context.js'
import { findRequest, pageOptions } from './find.js'
import { SERVER_VERSION } from './handshake.js'

const VERBOSITIES = new Set(['queryPlanner', 'executionStats', 'allPlansExecution'])
/** The sort memory limit a SORT stage shows: the engine's default for one sort (openEmbedded's sortMemoryLimitBytes). */
const SORT_MEMORY_LIMIT = 100 * 1024 * 1024
/** How many levels of views over views an explain follows to the collection underneath. */
const MAX_VIEW_DEPTH = 100

/** What a read asks of the planner and of the stages above it. */
interface ReadShape {
  filter: Document
  sort?: SortSpec | undefined
  skip?: number | undefined
  limit?: number | undefined
  projection?: Document | undefined
  collation?: unknown
}

/** An explained read: its plan (mongod's stage tree), and, run, what it examined. */
interface Explained {
  queryPlanner: Document
  run?: () => Promise<Execution>
}

interface Execution {
  nReturned: number
  stats: ReadStats
  millis: number
  /** Fields the root stage adds (a count's `nCounted`, a write's `nWouldDelete`). */
  root?: Document
}

/**
 * `explain` of `find`, `count`, `distinct`, `aggregate`, `update`, `delete` and `findAndModify`,
 * with mongod's shape: `queryPlanner.winningPlan` is the plan the engine's planner picks
 * (query-planner.ts): `COLLSCAN`, `IDHACK` for one `_id`, or `FETCH` over an `IXSCAN` naming the
 * index, under `SORT` (when no index serves the sort), `SKIP`, `LIMIT` and a projection.
 * `executionStats` (and `allPlansExecution`, the same: the planner weighs no competing plans, so
 * `rejectedPlans` is empty) runs the read and counts what it returned and examined: documents read
 * from storage, index keys walked (counted for that read alone, whatever else runs meanwhile).
 * A write's explain runs its match only: nothing is written.
 */
const explain: CommandHandler = async (command, context) => {
  const inner = command['explain']
  if (!isNonArrayObject(inner)) throw typeMismatch("'explain' must be a command document")
  const verbosity = command['verbosity'] ?? 'allPlansExecution'
  if (typeof verbosity !== 'string' || !VERBOSITIES.has(verbosity)) throw badValue(`verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}, got ${JSON.stringify(verbosity)}`)
  const name = Object.keys(inner)[0]
  const explainer = name === undefined ? undefined : EXPLAINERS[name]
  if (explainer === undefined) throw new WireError(59, 'CommandNotFound', `Explain failed due to unknown command: ${String(name)}`)
  const reply = await explainer(inner, context)
  const out: Document = { explainVersion: '1' }
  if ('stages' in reply) {
    out['stages'] = verbosity === 'queryPlanner' ? reply.stages : await withExecution(reply.stages, reply.cursor)
  } else {
    out['queryPlanner'] = reply.queryPlanner
    if (verbosity !== 'queryPlanner' && reply.run) out['executionStats'] = executionStats(reply.queryPlanner, await reply.run(), verbosity)
  }
  const { $db: _db, lsid: _lsid, $clusterTime: _time, ...shown } = inner
  const [host, port] = splitAddress(context.server.address)
  return { ...out, command: shown, serverInfo: { host, port, version: SERVER_VERSION, gitVersion: 'fastify-mongo-crud-embedded' }, ok: 1 }
}

/** An aggregation's explain: its stages, the first a `$cursor` holding the read's plan (when it reads a collection). */
type AggregateExplained = { stages: Document[], cursor: Explained | undefined }

type Explainer = (command: Document, context: CommandContext) => Promise<Explained | AggregateExplained> | Explained | AggregateExplained

const EXPLAINERS: Record<string, Explainer> = {
  find: async (command, context) => {
    const { filter, options } = findRequest(command)
    const name = collectionName(command['find'], 'find')
    const shape: ReadShape = { filter, sort: toFindSort(options.sort), skip: options.skip, limit: options.limit, projection: options.projection, collation: options.collation }
    if (await viewOf(context, name)) return aggregateExplained({ aggregate: name, pipeline: stagesOf(shape) }, context)
    return readExplained(context, name, shape, () => context.db.collection(name).find(filter, storedOptions(options)))
  },
  count: async (command, context) => {
    const name = collectionName(command['count'], 'count')
    const filter = optionalDocument(command, 'query') ?? {}
    const options = { ...pageOptions(command), collation: optionalCollation(command) }
    if (await viewOf(context, name)) return aggregateExplained({ aggregate: name, pipeline: [...stagesOf({ filter, ...options }), { $count: 'n' }] }, context)
    const explained = readExplained(context, name, { filter, ...options }, () => context.db.collection(name).find(filter, storedOptions(options)))
    return wrapped(explained, (plan) => ({ stage: 'COUNT', inputStage: plan }), (execution) => ({ nReturned: 0, root: { nCounted: execution.nReturned } }))
  },
  distinct: async (command, context) => {
    const name = collectionName(command['distinct'], 'distinct')
    const key = command['key']
    if (typeof key !== 'string' || key === '') throw typeMismatch("'key' must be a non-empty string")
    const filter = optionalDocument(command, 'query') ?? {}
    const collation = optionalCollation(command)
    const projection = { [key]: 1, _id: 0 }
    if (await viewOf(context, name)) return aggregateExplained({ aggregate: name, pipeline: stagesOf({ filter, projection }) }, context)
    return readExplained(context, name, { filter, projection, collation }, () => context.db.collection(name).find(filter, { projection, collation, [AS_HELD]: true }))
  },
  aggregate: (command, context) => aggregateExplained(command, context),
  update: (command, context) => {
    const [statement] = singleStatement(command, 'updates')
    const name = collectionName(command['update'], 'update')
    const filter = optionalDocument(statement, 'q') ?? {}
    const limit = statement['multi'] === true ? undefined : 1
    return writeExplained(context, name, { filter, limit, collation: statement['collation'] }, 'UPDATE', (n) => ({ nMatched: n }))
  },
  delete: (command, context) => {
    const [statement] = singleStatement(command, 'deletes')
    const name = collectionName(command['delete'], 'delete')
    const filter = optionalDocument(statement, 'q') ?? {}
    const limit = Number(statement['limit'] ?? 0) === 1 ? 1 : undefined
    return writeExplained(context, name, { filter, limit, collation: statement['collation'] }, 'DELETE', (n) => ({ nWouldDelete: n }))
  },
  findAndModify: (command, context) => {
    const name = collectionName(command['findAndModify'], 'findAndModify')
    const filter = optionalDocument(command, 'query') ?? {}
    const sort = toFindSort(optionalDocument(command, 'sort'))
    const remove = command['remove'] === true
    return writeExplained(context, name, { filter, sort, limit: 1, collation: command['collation'] }, remove ? 'DELETE' : 'UPDATE', (n) => (remove ? { nWouldDelete: n } : { nMatched: n }))
  },
}

/** The plan of a read on collection `name`, run by `open` for executionStats. */
function readExplained(context: CommandContext, name: string, shape: ReadShape, open: () => EmbeddedCursor): Explained {
  const ns = `${context.dbName}.${name}`
  const queryPlanner: Document = { namespace: ns, indexFilterSet: false, parsedQuery: shape.filter, winningPlan: planTree(coreOf(context, name), shape), rejectedPlans: [] }
  return { queryPlanner, run: () => observe(open) }
}

/** A read on a view as the engine runs it: stages after the view's own. */
function stagesOf(shape: ReadShape): Document[] {
  const stages: Document[] = [{ $match: shape.filter }]
  if (shape.sort !== undefined) stages.push({ $sort: shape.sort })
  if (shape.skip) stages.push({ $skip: shape.skip })
  if (shape.limit) stages.push({ $limit: shape.limit })
  if (shape.projection !== undefined && Object.keys(shape.projection).length > 0) stages.push({ $project: shape.projection })
  return stages
}

/** A write's plan: its match's, under an UPDATE or DELETE stage; run, the match alone. A view cannot be written (166). */
async function writeExplained(context: CommandContext, name: string, shape: ReadShape, stage: string, counts: (matched: number) => Document): Promise<Explained> {
  if (await viewOf(context, name)) throw new WireError(166, 'CommandNotSupportedOnView', `Namespace ${context.dbName}.${name} is a view, not a collection`)
  const collation = shape.collation
  const explained = readExplained(context, name, shape, () => context.db.collection(name).find(shape.filter, storedOptions({ ...(shape.sort ? { sort: shape.sort } : {}), ...(shape.limit ? { limit: shape.limit } : {}), collation: optionalCollation({ collation }) })))
  return wrapped(explained, (plan) => ({ stage, inputStage: plan }), (execution) => ({ nReturned: 0, root: counts(execution.nReturned) }))
}

/** `explained` with a stage above its plan, and its execution's counts reshaped. */
function wrapped(explained: Explained, above: (plan: Document) => Document, reshape: (execution: Execution) => Partial<Execution>): Explained {
  const queryPlanner = { ...explained.queryPlanner, winningPlan: above(explained.queryPlanner['winningPlan'] as Document) }
  const run = explained.run
  return run === undefined ? { queryPlanner } : { queryPlanner, run: async () => { const execution = await run(); return { ...execution, ...reshape(execution) } } }
}

/**
 * An aggregation: the read of its leading `$match` and `$sort` (the engine's own read, as the
 * server's `$cursor`), planned as a find, then its other stages as they are. A pipeline that is the
 * read alone is explained as that find, as mongod does. Run, the whole pipeline.
 */
async function aggregateExplained(command: Document, context: CommandContext): Promise<Explained | AggregateExplained> {
  const pipeline = requiredArray(command, 'pipeline')
  const target = command['aggregate']
  const options = { collation: optionalCollation(command), [AS_HELD]: true as const }
  if (typeof target !== 'string' || startsWithSource(pipeline)) return { stages: pipeline, cursor: undefined }
  const name = collectionName(target, 'aggregate')
  const resolved = await resolveView(context, name, pipeline)
  const [first, ...rest] = resolved.pipeline
  const leadingMatch = isNonArrayObject(first) && Object.keys(first).length === 1 && Object.hasOwn(first, '$match')
  const filter = leadingMatch ? (first['$match'] as Document) : {}
  const stages = leadingMatch ? rest : resolved.pipeline
  const sorted = leadingSort(stages)
  const later = sorted === undefined ? stages : stages.slice(1)
  const shape: ReadShape = { filter, sort: sorted === undefined ? undefined : toSortSpec(sorted.sort), limit: sorted?.limit, collation: options.collation }
  const open = () => context.db.collection(name).aggregate(pipeline, options)
  const queryPlanner: Document = {
    namespace: `${context.dbName}.${resolved.collection}`,
    indexFilterSet: false,
    parsedQuery: filter,
    winningPlan: planTree(coreOf(context, resolved.collection), shape),
    rejectedPlans: [],
  }
  const cursor: Explained = { queryPlanner, run: () => observe(open) }
  if (later.length === 0) return cursor
  return { stages: [{ $cursor: { queryPlanner } }, ...later], cursor }
}

/** The stages with the `$cursor`'s executionStats: the documents and keys its read examined, and what the pipeline returned. */
async function withExecution(stages: Document[], cursor: Explained | undefined): Promise<Document[]> {
  if (cursor?.run === undefined) return stages
  const execution = await cursor.run()
  const [first, ...rest] = stages
  const $cursor = (first as Document)['$cursor'] as Document
  return [{ $cursor: { ...$cursor, executionStats: executionStats(cursor.queryPlanner, execution, 'executionStats') } }, ...rest]
}

function executionStats(queryPlanner: Document, execution: Execution, verbosity: string): Document {
  const stats: Document = {
    executionSuccess: true,
    nReturned: execution.nReturned,
    executionTimeMillis: execution.millis,
    totalKeysExamined: execution.stats.keysExamined,
    totalDocsExamined: execution.stats.docsExamined,
    executionStages: annotate(queryPlanner['winningPlan'] as Document, execution, true),
  }
  if (verbosity === 'allPlansExecution') stats['allPlansExecution'] = []
  return stats
}

/** The plan's stages with what the run counted: returned at the root, keys at the index scan, documents where they are read. */
function annotate(stage: Document, execution: Execution, root: boolean): Document {
  const out: Document = { ...stage }
  if (root) Object.assign(out, { nReturned: execution.nReturned, executionTimeMillisEstimate: execution.millis }, execution.root ?? {})
  if (stage['stage'] === 'IXSCAN' || stage['stage'] === 'IDHACK') out['keysExamined'] = execution.stats.keysExamined
  if (stage['stage'] === 'COLLSCAN' || stage['stage'] === 'FETCH' || stage['stage'] === 'IDHACK') out['docsExamined'] = execution.stats.docsExamined
  if (isNonArrayObject(stage['inputStage'])) out['inputStage'] = annotate(stage['inputStage'], execution, false)
  return out
}

/** Runs a read to its end, counting what it examined (that read's alone: EmbeddedCursor.observe). */
async function observe(open: () => EmbeddedCursor): Promise<Execution> {
  const stats: ReadStats = { docsExamined: 0, keysExamined: 0 }
  const cursor = open()
  EmbeddedCursor.observe(cursor, stats)
  const started = performance.now()
  let nReturned = 0
  for await (const _ of cursor) nReturned++
  return { nReturned, stats, millis: Math.round(performance.now() - started) }
}

/**
 * mongod's stage tree for a read: how the planner reaches the documents (the access stage), then
 * SORT when the index does not give the order, SKIP, LIMIT and the projection.
 */
function planTree(core: CollectionCore, shape: ReadShape): Document {
  const plan = core.plan(shape.filter, { sort: shape.sort, collation: shape.collation })
  let stage = accessStage(core, plan, shape)
  if (shape.sort !== undefined && plan?.sorted !== true) {
    const limitAmount = shape.limit === undefined ? undefined : shape.limit + (shape.skip ?? 0)
    stage = { stage: 'SORT', sortPattern: shape.sort, memLimit: SORT_MEMORY_LIMIT, ...(limitAmount === undefined ? {} : { limitAmount }), type: 'simple', inputStage: stage }
  }
  if (shape.skip) stage = { stage: 'SKIP', skipAmount: shape.skip, inputStage: stage }
  if (shape.limit) stage = { stage: 'LIMIT', limitAmount: shape.limit, inputStage: stage }
  if (shape.projection !== undefined && Object.keys(shape.projection).length > 0) stage = { stage: 'PROJECTION_DEFAULT', transformBy: shape.projection, inputStage: stage }
  return stage
}

/** A scan of the collection, the point read of one `_id`, or the fetch of what an index scan finds (the whole filter checked on each). */
function accessStage(core: CollectionCore, plan: Plan | undefined, shape: ReadShape): Document {
  if (plan === undefined) return { stage: 'COLLSCAN', filter: shape.filter, direction: 'forward' }
  const ids = plan.index === ID_INDEX && isSimpleCollation(shape.collation) ? pointKeysOf(shape.filter) : undefined
  if (ids !== undefined && ids.length === 1 && Object.keys(shape.filter).length === 1) return { stage: 'IDHACK' }
  const live = core.indexes.usable().find((index) => index.name === plan.index)
  const keyPattern: Record<string, 1 | -1> = plan.index === ID_INDEX ? { _id: 1 } : Object.fromEntries(live?.fields ?? [])
  const scan: Document = {
    stage: 'IXSCAN',
    keyPattern,
    indexName: plan.index,
    isMultiKey: live?.multikey === true,
    isUnique: plan.index === ID_INDEX || live?.unique === true,
    direction: plan.sorted && isBackward(keyPattern, shape.sort) ? 'backward' : 'forward',
  }
  return { stage: 'FETCH', filter: shape.filter, inputStage: scan }
}

/** Whether an index walk serving `sort` goes backwards: the first sorted field the index holds is in the other direction (or, for `_id` alone, descending). */
function isBackward(keyPattern: Record<string, 1 | -1>, sort: SortSpec | undefined): boolean {
  if (sort === undefined) return false
  for (const [field, direction] of Object.entries(sort)) {
    if (Object.hasOwn(keyPattern, field)) return keyPattern[field] !== direction
  }
  return sort['_id'] === -1
}

/** The core of collection `name` (not a view: the caller resolved views first). */
function coreOf(context: CommandContext, name: string): CollectionCore {
  return EmbeddedCollection.coreOf(context.db.collection(name))
}

/** The definition of view `name`, or undefined when it is not a view. */
async function viewOf(context: CommandContext, name: string): Promise<{ viewOn: string, pipeline: Document[] } | undefined> {
  const [info] = await context.db.listCollections({ name, type: 'view' }).toArray()
  return info === undefined ? undefined : (info['options'] as { viewOn: string, pipeline: Document[] })
}

/** Follows views down to the collection they read, their pipelines before `pipeline`. */
async function resolveView(context: CommandContext, name: string, pipeline: Document[]): Promise<{ collection: string, pipeline: Document[] }> {
  let collection = name
  let stages = pipeline
  for (let depth = 0; depth < MAX_VIEW_DEPTH; depth++) {
    const view = await viewOf(context, collection)
    if (view === undefined) break
    collection = view.viewOn
    stages = [...view.pipeline, ...stages]
  }
  return { collection, pipeline: stages }
}

/** Stages that make their own documents (no collection read to plan). */
function startsWithSource(pipeline: Document[]): boolean {
  const first = pipeline[0]
  return isNonArrayObject(first) && ['$collStats', '$changeStream', '$documents', '$currentOp', '$listLocalSessions', '$indexStats'].some((stage) => Object.hasOwn(first, stage))
}

/** Explain takes one statement of a write batch, as mongod. */
function singleStatement(command: Document, field: string): [Document] {
  const statements = requiredArray(command, field)
  if (statements.length !== 1 || !isNonArrayObject(statements[0])) throw badValue(`explained write batches must be of size 1, got ${statements.length}`)
  return [statements[0]]
}

/** A find's options for a run whose documents are only counted: sent as stored when nothing reshapes them. */
function storedOptions(options: FindOptions): StoredFindOptions & PromoteOptions {
  return options.projection === undefined ? { ...options, [AS_STORED]: true } : { ...options, [AS_HELD]: true }
}

function splitAddress(address: string): [string, number] {
  const cut = address.lastIndexOf(':')
  return [address.slice(0, cut), Number(address.slice(cut + 1))]
}

export const EXPLAIN_COMMANDS: Record<string, CommandHandler> = { explain }
