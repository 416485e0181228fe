import { Aggregator } from 'mingo/aggregator'
import type { Document } from '../document.js'
import { asServerError } from '../errors.js'

/** Where the equality join parks a document's matches before its pipeline runs over them. */
const JOINED = '__fmcCorrelatedLookupMatches'

/**
 * True for a `$lookup` with `localField`/`foreignField` AND a non-empty `pipeline` (MongoDB 5.0's
 * "concise correlated subquery"). mingo runs such a pipeline over the whole foreign collection as
 * soon as one document matches, so the engine runs it itself (correlatedLookup).
 */
export function isCorrelatedLookup(stage: Document): boolean {
  const spec = stage['$lookup'] as Document | undefined
  if (typeof spec !== 'object' || spec === null) return false
  return spec['localField'] !== undefined && spec['foreignField'] !== undefined && Array.isArray(spec['pipeline']) && spec['pipeline'].length > 0
}

/**
 * MongoDB's semantics: the foreign documents of each input document are those the
 * localField/foreignField equality selects (mingo's plain equality join, arrays and null
 * included), and the pipeline then runs over those alone, with `let` evaluated on the input document.
 */
export function correlatedLookup(docs: Document[], stage: Document, options: Document): Document[] {
  const { pipeline, let: letVars, as, ...join } = stage['$lookup'] as Document
  try {
    const joined = new Aggregator([{ $lookup: { ...join, as: JOINED } }], options).run(docs) as Document[]
    return joined.map((doc) => {
      const { [JOINED]: matches, ...input } = doc
      const lookup: Document = { from: matches, pipeline, as }
      if (letVars !== undefined) lookup['let'] = letVars
      return new Aggregator([{ $lookup: lookup }], options).run([input])[0] as Document
    })
  } catch (error) {
    throw asServerError(error)
  }
}
