import { Context } from 'mingo/core'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import { valueExpressionOperators, valueQueryOperators } from '../operators/value-operators.js'
import type { Collation } from './collation.js'

const contexts = new WeakMap<Collation, typeof MINGO_OPTIONS>()

/**
 * The engine's mingo options with the operators that compare values replaced by ones that compare
 * strings under `collation`: the query operators `$eq` (and implicit equality), `$ne`, `$gt`,
 * `$gte`, `$lt`, `$lte`, `$in`, `$nin`, `$all` (so also inside arrays and `$elemMatch`, which
 * compiles its criteria with these options), and the expression operators `$eq`, `$ne`, `$gt`,
 * `$gte`, `$lt`, `$lte`, `$cmp`, `$in` (value-operators.ts; numbers compare by value as without a
 * collation). Built once per collation.
 */
export function collatedMingoOptions(collation: Collation): typeof MINGO_OPTIONS {
  let options = contexts.get(collation)
  if (options === undefined) {
    const own = Context.init({ query: valueQueryOperators(collation), expression: valueExpressionOperators(collation) } as Parameters<typeof Context.init>[0])
    // Context.from merges left to right, the first context's operators winning.
    options = Object.freeze({ ...MINGO_OPTIONS, context: Context.from(own, MINGO_OPTIONS.context) })
    contexts.set(collation, options)
  }
  return options
}
