import { Aggregator } from 'mingo/aggregator'
import { checkFieldPaths } from './check-field-path.js'
import { collatedMingoOptions } from './collated-operators.js'
import type { Collation } from './collation.js'
import { refuseUncollatedStage } from './collation-refusals.js'
import { correlatedLookup, isCorrelatedLookup } from './correlated-lookup.js'
import type { Document } from './document.js'
import { asServerError, badValueError } from './errors.js'
import type { Variables } from './let-variables.js'
import { MINGO_OPTIONS } from './mingo-options.js'
import { SortedCollector, type SortSpec } from './sort-documents.js'
import { toSortSpec } from './sort-spec.js'

const MATCH: ReadonlySet<string> = new Set(['$match'])

/** Reads a collection of the same database, for `$lookup`, `$graphLookup` and `$unionWith`. */
export type CollectionResolver = (name: string) => Document[]

/** Stages that write: the engine answers them with an error rather than ignoring them. */
const REFUSED = new Set(['$out', '$merge', '$geoNear', '$search', '$searchMeta', '$vectorSearch', '$changeStream', '$collStats', '$indexStats', '$currentOp', '$listSessions'])

/**
 * Runs an aggregation pipeline over `source` (the documents the leading `$match` selected).
 * Top-level `$sort` stages use the engine's BSON order (bson-order.ts), with a following `$limit`
 * bounding the sort buffer; every other stage runs in mingo, in runs between the sorts. Under a
 * `collation`, mingo runs with the collated operators and the sorts compare strings with it.
 */
export function aggregateDocuments(source: Iterable<Document>, pipeline: Document[], resolve: CollectionResolver, variables?: Variables, collation?: Collation): Document[] {
  // Stages build documents from client paths; a `$match` only reads (and mingo guards its reads).
  checkFieldPaths(pipeline, MATCH)
  const options = { ...(collation ? collatedMingoOptions(collation) : MINGO_OPTIONS), collectionResolver: resolve, ...(variables === undefined ? {} : { variables }) }
  let docs: Iterable<Document> = source
  let run: Document[] = []
  const flush = () => {
    if (run.length === 0) return
    docs = runMingo(run, docs, options)
    run = []
  }
  for (let i = 0; i < pipeline.length; i++) {
    const stage = pipeline[i]!
    const name = stageName(stage)
    if (REFUSED.has(name)) throw badValueError(`${name} is not supported by the embedded engine`)
    if (collation) refuseUncollatedStage(stage, name)
    if (name === '$lookup' && isCorrelatedLookup(stage)) {
      flush()
      docs = correlatedLookup(Array.isArray(docs) ? docs : [...docs], stage, options)
      continue
    }
    if (name !== '$sort') {
      run.push(stage)
      continue
    }
    flush()
    const next = pipeline[i + 1]
    const keep = next && stageName(next) === '$limit' ? Number(next['$limit']) : Number.POSITIVE_INFINITY
    docs = sortDocuments(docs, toSortSpec(stage['$sort']), keep, collation)
  }
  flush()
  return Array.isArray(docs) ? docs : [...docs]
}

function stageName(stage: Document): string {
  const keys = Object.keys(stage ?? {})
  if (typeof stage !== 'object' || stage === null || keys.length !== 1) {
    throw badValueError('A pipeline stage specification object must contain exactly one field.')
  }
  return keys[0]!
}

function runMingo(stages: Document[], docs: Iterable<Document>, options: Document): Document[] {
  try {
    return new Aggregator(stages, options).run(Array.isArray(docs) ? docs : [...docs]) as Document[]
  } catch (error) {
    throw asServerError(error)
  }
}

function sortDocuments(docs: Iterable<Document>, sort: SortSpec, keep: number, collation: Collation | undefined): Document[] {
  const collector = new SortedCollector(sort, keep > 0 ? keep : Number.POSITIVE_INFINITY, collation?.compareValues)
  for (const doc of docs) collector.add(doc)
  return collector.result()
}
