import { compileRegex, RegexRefusal } from '@fastify-mongo-crud/linear-regex'
import { invalidFilter } from '../errors.js'

/**
 * A client's `$regex` is matched in linear time (RE2 semantics, see compile-regex.ts), by the
 * embedded engine and, for the same answer on every store, checked here the same way before any query
 * runs: a pattern RE2 cannot compile (lookarounds, backreferences, a syntax error, a program too large)
 * is a 422 whose detail says what is wrong. `options` are MongoDB's (`imsx`), already checked against
 * the router's `regexOptions`.
 */
export function checkClientRegex(key: string, pattern: string, options: string): void {
  try {
    compileRegex(pattern, options)
  } catch (error) {
    if (!(error instanceof RegexRefusal)) throw error
    throw invalidFilter(`filters: $regex on "${key}" ${error.kind === 'options' ? `has an ${error.reason}` : error.reason}`)
  }
}
