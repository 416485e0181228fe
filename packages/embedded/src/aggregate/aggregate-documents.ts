import { Aggregator } from 'mingo/aggregator'
import { bsonSizeWithin } from '../bson/bson-codec.js'
import { checkFieldPaths } from '../check-field-path.js'
import { collatedMingoOptions } from '../collation/collated-operators.js'
import type { Collation } from '../collation/collation.js'
import { refuseUncollatedStage } from '../collation/collation-refusals.js'
import { type Document, isNonArrayObject } from '../document.js'
import { asServerError, badValueError, invalidNamespaceError, locationError } from '../errors.js'
import { DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES, withExpressionMemoryLimit } from '../operators/expression-memory.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import { inSlices } from '../operators/stage-slices.js'
import { Deadline } from '../pace/deadline.js'
import { PAUSE, type Paced, type Pause, unpaced } from '../pace/pause.js'
import type { Variables } from '../query/let-variables.js'
import { SortedCollector, type SortSpec } from '../sort/sort-documents.js'
import { DEFAULT_SORT_MEMORY_LIMIT_BYTES, type SortMemory, SortMemoryLimit } from '../sort/sort-memory-limit.js'
import { toSortSpec } from '../sort/sort-spec.js'
import { correlatedLookup, isCorrelatedLookup } from './correlated-lookup.js'
import { facetInSlices, isFacetSpec } from './facet-stage.js'
import { gather } from './gather-input.js'

const MATCH: ReadonlySet<string> = new Set(['$match'])

/** How one aggregation runs: its `let` variables, its collation and its memory limits. */
export interface PipelineSettings {
  variables?: Variables | undefined
  collation?: Collation | undefined
  /**
   * What a `$sort` stage may hold: the BSON size of the documents it keeps, as a find's sort
   * (sort-memory-limit.ts: the engine's `sortMemoryLimitBytes` within its total, 292 or 365 past
   * them). `allowDiskUse` does not lift it: the engine has no external sort; the error then says so.
   */
  sortMemory?: SortMemory | undefined
  /** What one value an expression or an accumulator builds may take (the engine's option; undefined: the default). */
  expressionMemoryLimitBytes?: number | undefined
}

/** Reads a collection of the same database, for `$lookup`, `$graphLookup` and `$unionWith`. */
export type CollectionResolver = (name: string) => Document[]

/** Stages the engine does not run: it answers them with an error rather than ignoring them. */
const REFUSED = new Set(['$geoNear', '$search', '$searchMeta', '$vectorSearch', '$changeStream', '$collStats', '$indexStats', '$currentOp', '$listSessions', '$listLocalSessions'])

/** Stages that write their input into a collection; only the last stage of a top-level pipeline may be one. */
const OUTPUT_STAGES: ReadonlySet<string> = new Set(['$out', '$merge'])

/** The pipeline's final `$out` or `$merge` stage, if it has one (the caller writes its results there). */
export function outputStageOf(pipeline: readonly unknown[]): Document | undefined {
  const last = pipeline.at(-1)
  if (!isNonArrayObject(last)) return undefined
  const keys = Object.keys(last)
  return keys.length === 1 && OUTPUT_STAGES.has(keys[0]!) ? (last as Document) : undefined
}

/**
 * Runs an aggregation pipeline over `source` (the documents the leading `$match` selected).
 * Top-level `$sort` stages use the engine's BSON order (bson-order.ts), with a following `$limit`
 * bounding the sort buffer, within `sortMemory`; every other stage runs in mingo, in runs between the sorts. Under a
 * `collation`, mingo runs with the collated operators and the sorts compare strings with it. The
 * values its expressions and accumulators build are bounded by `expressionMemoryLimitBytes`
 * (expression-memory.ts). `collectionless`: a database-level aggregation (`aggregate: 1`).
 *
 * Paced (pause.ts): reading the source, the engine's sorts and the documents mingo streams out run in
 * slices with a PAUSE between two. So do the stages computed over all their input at once that hold
 * most of a pipeline's work: a top-level `$group` ends its run of mingo stages and groups in slices
 * (stage-slices.ts), and each facet of a top-level `$facet` runs as a pipeline of its own
 * (facet-stage.ts). Others (`$bucket`, `$setWindowFields`...) run in one stretch, over an input gathered
 * in slices.
 */
export function* aggregatePaced(
  source: Iterable<Document | Pause>,
  pipeline: Document[],
  resolve: CollectionResolver,
  deadline: Deadline,
  settings: PipelineSettings = {},
  collectionless = false
): Paced<Document> {
  const { collation } = settings
  const sortMemory = settings.sortMemory ?? { limitBytes: DEFAULT_SORT_MEMORY_LIMIT_BYTES }
  const options = mingoOptions(pipeline, resolve, settings)
  let docs: Iterable<Document | Pause> = source
  let run: Document[] = []
  const flush = () => {
    if (run.length > 0) docs = streamMingo(run, docs, options, deadline)
    run = []
  }
  for (let i = 0; i < pipeline.length; i++) {
    const stage = pipeline[i]!
    const name = checkStage(stage, i, collation, collectionless)
    if (name === '$lookup' && isCorrelatedLookup(stage)) {
      flush()
      docs = lookUp(docs, stage, options, deadline)
      continue
    }
    if (name === '$facet' && isFacetSpec(stage['$facet'])) {
      flush()
      const facets = stage['$facet']
      const limitBytes = settings.expressionMemoryLimitBytes ?? DEFAULT_EXPRESSION_MEMORY_LIMIT_BYTES
      docs = facetInSlices(docs, facets, (sub, input) => aggregatePaced(input, sub, resolve, deadline, settings), limitBytes, deadline)
      continue
    }
    if (name === '$group') {
      // The last of its run, where the PAUSEs it yields reach no other mingo stage (streamMingo).
      run.push(stage)
      flush()
      continue
    }
    if (name !== '$sort') {
      run.push(stage)
      continue
    }
    flush()
    const next = pipeline[i + 1]
    const keep = next && stageName(next) === '$limit' ? Number(next['$limit']) : Number.POSITIVE_INFINITY
    docs = sortDocuments(docs, toSortSpec(stage['$sort']), keep, collation, sortMemory, deadline)
  }
  flush()
  yield* docs
  return undefined
}

/** aggregatePaced in one stretch, for what needs every result at once (a view read by `$lookup`). */
export function aggregateDocuments(source: Iterable<Document>, pipeline: Document[], resolve: CollectionResolver, settings: PipelineSettings = {}, collectionless = false): Document[] {
  return [...unpaced(aggregatePaced(source, pipeline, resolve, new Deadline(undefined), settings, collectionless))]
}

/** The mingo options of a pipeline, once its paths and sub-pipelines are checked. */
function mingoOptions(pipeline: Document[], resolve: CollectionResolver, settings: PipelineSettings): Document {
  // Stages build documents from client paths; a `$match` only reads (and mingo guards its reads).
  checkFieldPaths(pipeline, MATCH)
  checkSubPipelines(pipeline)
  const { variables, collation } = settings
  const base = { ...(collation ? collatedMingoOptions(collation) : MINGO_OPTIONS), collectionResolver: resolve, ...(variables === undefined ? {} : { variables }) }
  return withExpressionMemoryLimit(base, settings.expressionMemoryLimitBytes)
}

/** The stage's name, once the engine's own refusals are checked. */
function checkStage(stage: Document, i: number, collation: Collation | undefined, collectionless: boolean): string {
  const name = stageName(stage)
  if (REFUSED.has(name)) throw badValueError(`${name} is not supported by the embedded engine`)
  if (collation) refuseUncollatedStage(stage, name)
  if (OUTPUT_STAGES.has(name)) throw locationError(40601, `${name} can only be the final stage in the pipeline`)
  if (collectionless && i === 0 && name !== '$documents') {
    throw invalidNamespaceError(`{aggregate: 1} is not valid for '${name}'; a collection is required.`)
  }
  if (name === '$documents') {
    if (!collectionless) throw invalidNamespaceError('$documents can only be run with {aggregate: 1}')
    if (i > 0) throw locationError(40602, '$documents is only valid as the first stage in a pipeline')
  }
  return name
}

/** Where MongoDB refuses `$out` and `$merge` inside a sub-pipeline, with its code for each place. */
const NESTED_OUTPUT_CODES: Record<string, [code: number, where: string]> = {
  $lookup: [51047, "is not allowed within a $lookup's sub-pipeline"],
  $unionWith: [31441, "is not allowed within a $unionWith's sub-pipeline"],
  $facet: [40600, 'is not allowed to be used within a $facet stage'],
}

/**
 * Refuses `$out` and `$merge` in the sub-pipelines of `$lookup`, `$unionWith` and `$facet`: mingo
 * would run them against its own copy of a collection, a write that silently goes nowhere.
 */
function checkSubPipelines(pipeline: unknown[]): void {
  for (const stage of pipeline) {
    if (typeof stage !== 'object' || stage === null) continue
    for (const [name, spec] of Object.entries(stage)) {
      const nested = NESTED_OUTPUT_CODES[name]
      if (!nested || typeof spec !== 'object' || spec === null) continue
      const subPipelines = name === '$facet' ? Object.values(spec) : [(spec as Document)['pipeline']]
      for (const sub of subPipelines) {
        if (!Array.isArray(sub)) continue
        for (const inner of sub) {
          const innerName = typeof inner === 'object' && inner !== null ? Object.keys(inner)[0] : undefined
          if (innerName !== undefined && OUTPUT_STAGES.has(innerName)) throw locationError(nested[0], `${innerName} ${nested[1]}`)
        }
        checkSubPipelines(sub)
      }
    }
  }
}

function stageName(stage: Document): string {
  const keys = Object.keys(stage ?? {})
  if (typeof stage !== 'object' || stage === null || keys.length !== 1) {
    throw badValueError('A pipeline stage specification object must contain exactly one field.')
  }
  return keys[0]!
}

/**
 * A run of mingo stages over the input (gathered first: mingo pulls its input synchronously), its
 * output pulled one document at a time: stages that stream (`$match`, `$project`, `$unwind`...) are
 * computed in slices; one that needs its whole input computes on the first pull.
 */
function* streamMingo(stages: Document[], docs: Iterable<Document | Pause>, options: Document, deadline: Deadline): Paced<Document> {
  const input = yield* gather(docs, deadline)
  let output: { next(): { value?: unknown, done?: boolean } }
  // A run ending in `$group` groups in slices: its operator yields PAUSE among the groups.
  const last = stages.at(-1)
  try {
    output = inSlices(last?.['$group'], deadline, () => new Aggregator(stages, options).stream(input))
  } catch (error) {
    throw asServerError(error)
  }
  for (;;) {
    let step: { value?: unknown, done?: boolean }
    try {
      step = output.next()
    } catch (error) {
      throw asServerError(error)
    }
    if (step.done) return undefined
    if (step.value === PAUSE) {
      yield PAUSE
      continue
    }
    yield step.value as Document
    deadline.tick()
    if (deadline.due()) yield PAUSE
  }
}

/** A correlated `$lookup` (correlated-lookup.ts) over the input, gathered first. */
function* lookUp(docs: Iterable<Document | Pause>, stage: Document, options: Document, deadline: Deadline): Paced<Document> {
  const input = yield* gather(docs, deadline)
  yield* correlatedLookup(input, stage, options)
  return undefined
}

/**
 * A `$sort` stage: the engine's collector, sorting in slices, within the engine's sort memory; each
 * document is given back to the memory limit as it is handed on.
 */
function* sortDocuments(docs: Iterable<Document | Pause>, sort: SortSpec, keep: number, collation: Collation | undefined, sortMemory: SortMemory, deadline: Deadline): Paced<Document> {
  const memory = new SortMemoryLimit(sortMemory)
  try {
    const collector = new SortedCollector(sort, keep > 0 ? keep : Number.POSITIVE_INFINITY, { order: collation?.compareValues, memory })
    // Measured only for the documents the sort keeps (a top-k drops most on arrival); a walk bounded by
    // the limit, as a document built by the pipeline may be far larger in BSON than in memory.
    const limit = Math.min(sortMemory.limitBytes, sortMemory.pool?.limitBytes ?? Number.POSITIVE_INFINITY)
    for (const doc of docs) {
      if (doc === PAUSE) yield PAUSE
      else if (collector.offer(doc, () => doc, () => (Number.isFinite(limit) ? bsonSizeWithin(doc, limit) : 0))) yield* collector.cut(deadline)
    }
    const sorted = yield* collector.sorted(deadline)
    for (let i = 0; i < sorted.length; i++) {
      const value = sorted.take(i)
      memory.release(sorted.size(i))
      yield value
      deadline.tick()
      if (deadline.due()) yield PAUSE
    }
  } finally {
    memory.release()
  }
  return undefined
}
