import { Aggregator } from 'mingo/aggregator'
import { ProcessingMode } from 'mingo/core'
import { type Iterator, Lazy } from 'mingo/lazy'
import { $densify, type $facet, $graphLookup, $lookup } from 'mingo/operators/pipeline'
import type { Options } from 'mingo/types'
import { memorySize, rememberSize } from '../bson/value-size.js'
import { locationError } from '../errors.js'
import { checkBuild, memoryLimitOf } from './expression-memory.js'
import { reserveHeap } from './heap-headroom.js'
import { lookupByValue } from './value-lookup.js'

/**
 * mingo's stages that make documents, or arrays inside each document, without bound, bounded as
 * MongoDB bounds them: `$densify` by the documents it may generate, `$lookup`, `$graphLookup` and
 * `$facet` by the memory of what they put in each document (the operation's expression memory
 * limit, expression-memory.ts, 100 MB by default as MongoDB's). A `$lookup` that joins every
 * document to a large collection, or a `$facet` of a thousand copies of its input, would otherwise
 * hold rows times matches in the heap until V8 aborts the process. Each stage's output is checked
 * document by document, as it is made.
 */
export const BOUNDED_STAGES = {
  $densify: boundedDensify,
  $lookup: boundedLookup,
  $graphLookup: boundedGraphLookup,
  $facet: boundedFacet,
}

/** MongoDB's limit on the documents one `$densify` may generate (`internalQueryMaxAllowedDensifyDocs`). */
const MAX_DENSIFY_DOCUMENTS = 500_000

type Doc = Record<string, unknown>

/**
 * mingo generates one document per step between the bounds (`{ step: 1, bounds: 'full' }` over
 * 0 and 1e9): past the limit, MongoDB's error (5897900). The documents it yields beyond those it
 * read are the ones it generated.
 */
function boundedDensify(collection: Iterator, expr: Parameters<typeof $densify>[1], options: Options): Iterator {
  let read = 0
  const counted = Lazy(() => {
    const next = collection.next()
    if (!next.done) read++
    return next
  })
  let yielded = 0
  return $densify(counted, expr, options).map((doc) => {
    const generated = ++yielded - read
    if (generated > MAX_DENSIFY_DOCUMENTS) {
      throw locationError(5897900, `Generated ${generated} documents in $densify, which is over the limit of ${MAX_DENSIFY_DOCUMENTS}`)
    }
    return doc
  })
}

/** The matches joined into one document: past the limit, MongoDB's error for a `$lookup` (4568). */
function boundedLookup(collection: Iterator, expr: Parameters<typeof $lookup>[1], options: Options): Iterator {
  const limit = memoryLimitOf(options)
  const from = typeof expr.from === 'string' ? expr.from : 'the documents'
  // Joined on values equal as MongoDB finds them (value-lookup.ts) when only the join fields are given.
  const joined = lookupByValue(collection, expr as unknown as Doc, options) ?? $lookup(collection, expr, options)
  return joined.map((doc) => {
    const joined = (doc as Doc)[expr.as]
    const bytes = memorySize(joined, limit)
    if (bytes > limit) throw locationError(4568, `Total size of documents in ${from} matching pipeline's $lookup stage exceeds ${limit} bytes`)
    // Documents with equal keys share one array of matches: measured once.
    rememberSize(joined, bytes)
    reserveHeap(bytes, '$lookup')
    return doc
  })
}

function boundedGraphLookup(collection: Iterator, expr: Parameters<typeof $graphLookup>[1], options: Options): Iterator {
  const limit = memoryLimitOf(options)
  return $graphLookup(collection, expr, options).map((doc) => {
    checkBuild('$graphLookup', memorySize((doc as Doc)[expr.as], limit), limit)
    return doc
  })
}

/**
 * Its one document holds every facet's documents, each facet run over its own deep copy of the
 * input (as mingo's `$facet` runs them): measured facet by facet, so a thousand facets over a large
 * input fail at the facet that passes the limit, with MongoDB's error (4031700).
 */
function boundedFacet(collection: Iterator, expr: Parameters<typeof $facet>[1], options: Options): Iterator {
  const own = ((options as { options?: Options }).options ?? options) as Options
  const facetOptions = (own.processingMode ?? 0) & ProcessingMode.CLONE_INPUT ? own : { ...own, processingMode: ProcessingMode.CLONE_INPUT }
  return collection.transform((docs) => {
    const facets = new FacetDocument(memoryLimitOf(options))
    for (const name of Object.keys(expr)) facets.add(name, new Aggregator(expr[name] ?? [], facetOptions).run(docs))
    return Lazy([facets.document])
  })
}

/**
 * The one document of a `$facet`, built facet by facet and measured as it grows (the operation's
 * expression memory limit): past it, MongoDB's error (4031700), at the facet that passes it. Also the
 * engine's top-level `$facet`, which runs its facets in slices (aggregate/facet-stage.ts).
 */
export class FacetDocument {
  readonly document: Doc = {}
  readonly #limit: number
  #bytes = 0

  /** `limit`: the operation's expression memory limit (memoryLimitOf). */
  constructor(limit: number) {
    this.#limit = limit
  }

  add(name: string, docs: unknown[]): void {
    this.document[name] = docs
    const added = memorySize(docs, this.#limit - this.#bytes)
    this.#bytes += added
    if (this.#bytes > this.#limit) throw locationError(4031700, `document constructed by $facet is at least ${this.#bytes} bytes, which exceeds the limit of ${this.#limit} bytes`)
    reserveHeap(added, '$facet')
  }
}
