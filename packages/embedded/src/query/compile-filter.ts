import { Query } from 'mingo/query'
import { collatedMingoOptions } from '../collation/collated-operators.js'
import type { Collation } from '../collation/collation.js'
import { containsString, refuseUncollatedFilter } from '../collation/collation-refusals.js'
import { type Document, isNonArrayObject } from '../document.js'
import { asServerError, badValueError } from '../errors.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import { variablesOf } from './let-variables.js'
import { normalizeFilter } from './normalize-filter.js'
import { compileSimpleFilter } from './simple-filter.js'

export type Matcher = (doc: Document) => boolean

/**
 * Compiles a MongoDB filter once per operation: plain equalities and comparisons directly
 * (simple-filter.ts, with mingo's answers), anything else with mingo. mingo's parse errors
 * (unknown operator, malformed `$in`...) become the server's BadValue error. `$$name` in `$expr`
 * reads the variables of the command's `let` (let-variables.ts `bindVariables`).
 *
 * Under a collation (`filterCollation`), mingo compiles the filter with operators that compare
 * strings in the collation's order (collated-operators.ts); the fast path compares binary.
 */
export function compileFilter(filter: Document, collation?: Collation): Matcher {
  if (!isNonArrayObject(filter)) {
    throw badValueError('filter must be an object')
  }
  if (Object.keys(filter).length === 0) return () => true
  if (collation === undefined) {
    const simple = compileSimpleFilter(filter)
    if (simple) return simple
  } else {
    refuseUncollatedFilter(filter)
  }
  let query: Query
  try {
    const variables = variablesOf(filter)
    const options = collation === undefined ? MINGO_OPTIONS : collatedMingoOptions(collation)
    query = new Query(normalizeFilter(filter), variables === undefined ? options : { ...options, variables })
  } catch (error) {
    throw asServerError(error)
  }
  return (doc) => {
    try {
      return query.test(doc)
    } catch (error) {
      throw asServerError(error)
    }
  }
}

/**
 * The collation a filter is matched with: none when it holds no string, since a collation changes
 * only how strings compare; then the fast path and the index lookups apply as without one. Index
 * lookups find binary-equal keys, so a filter with a collation never uses them.
 */
export function filterCollation(filter: Document, collation: Collation | undefined): Collation | undefined {
  return collation !== undefined && containsString(filter) ? collation : undefined
}
