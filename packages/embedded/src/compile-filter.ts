import { Query } from 'mingo/query'
import type { Document } from './document.js'
import { asServerError, badValueError } from './errors.js'
import { variablesOf } from './let-variables.js'
import { MINGO_OPTIONS } from './mingo-options.js'
import { normalizeFilter } from './normalize-filter.js'
import { compileSimpleFilter } from './simple-filter.js'

export type Matcher = (doc: Document) => boolean

/**
 * Compiles a MongoDB filter once per operation: plain equalities and comparisons directly
 * (simple-filter.ts, with mingo's answers), anything else with mingo. mingo's parse errors
 * (unknown operator, malformed `$in`...) become the server's BadValue error. `$$name` in `$expr`
 * reads the variables of the command's `let` (let-variables.ts `bindVariables`).
 */
export function compileFilter(filter: Document): Matcher {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw badValueError('filter must be an object')
  }
  if (Object.keys(filter).length === 0) return () => true
  const simple = compileSimpleFilter(filter)
  if (simple) return simple
  let query: Query
  try {
    const variables = variablesOf(filter)
    query = new Query(normalizeFilter(filter), variables === undefined ? MINGO_OPTIONS : { ...MINGO_OPTIONS, variables })
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
