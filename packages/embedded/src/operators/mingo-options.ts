import { Context } from 'mingo/core'
import * as accumulatorOperators from 'mingo/operators/accumulator'
import * as expressionOperators from 'mingo/operators/expression'
import * as pipelineOperators from 'mingo/operators/pipeline'
import * as projectionOperators from 'mingo/operators/projection'
import * as queryOperators from 'mingo/operators/query'
import * as windowOperators from 'mingo/operators/window'
import { compareBson } from '../bson/bson-order.js'
import { ARITHMETIC_OPERATORS } from './arithmetic-operators.js'
import { BOUNDED_ACCUMULATORS } from './bounded-accumulators.js'
import { BOUNDED_ARRAY_LOOPS } from './bounded-array-loops.js'
import { BOUNDED_ARRAY_OPERATORS } from './bounded-array-operators.js'
import { BOUNDED_STAGES } from './bounded-stages.js'
import { BOUNDED_STRING_OPERATORS } from './bounded-string-operators.js'
import { countStage } from './count-stage.js'
import { NUMBER_ARGUMENT_OPERATORS } from './number-arguments.js'
import { NUMERIC_ACCUMULATORS } from './numeric-accumulators.js'
import { NUMERIC_QUERY_OPERATORS } from './numeric-query-operators.js'
import { LINEAR_REGEX_EXPRESSION_OPERATORS, LINEAR_REGEX_QUERY_OPERATORS } from './regex-operators.js'
import { NUMBER_ARGUMENT_STAGES } from './stage-arguments.js'
import { TYPE_OPERATORS } from './type-operators.js'
import { valueGroup } from './value-group.js'
import { type ValueOrder, valueExpressionOperators, valueQueryOperators } from './value-operators.js'

/**
 * Values compared without a collation: strings by UTF-16 code units in queries (mingo's order, which
 * the engine's fast filters share: simple-filter.ts), whole values in BSON order in expressions.
 */
const BINARY: ValueOrder = {
  compareStrings: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  compareValues: (a, b) => compareBson(a, b),
}

/**
 * mingo's operators, with those that run a client's regular expression replaced by linear-time ones
 * (regex-operators.ts), those that would build arrays, strings or documents without bound
 * replaced by ones that measure what they build (expression-memory.ts, bounded-*.ts), and those
 * that compare, test or compute numbers replaced by ones that keep each numeric BSON type as MongoDB
 * does (value-operators.ts, numeric-query-operators.ts, arithmetic-operators.ts, type-operators.ts,
 * numeric-accumulators.ts, `$group` by value: value-group.ts; and number-arguments.ts and
 * stage-arguments.ts for mingo's operators and stages that take a count, an index or a flag). mingo's
 * `Query` and `Aggregator` from the package root merge a caller's context *under* their own
 * built-ins, so the engine uses the base classes (`mingo/query`, `mingo/aggregator`,
 * `mingo/updater`) with this complete context instead.
 */
const ENGINE_CONTEXT = Context.init({
  accumulator: { ...accumulatorOperators, ...BOUNDED_ACCUMULATORS, ...NUMERIC_ACCUMULATORS },
  expression: {
    ...expressionOperators,
    ...LINEAR_REGEX_EXPRESSION_OPERATORS,
    ...BOUNDED_ARRAY_OPERATORS,
    ...BOUNDED_ARRAY_LOOPS,
    ...BOUNDED_STRING_OPERATORS,
    ...NUMBER_ARGUMENT_OPERATORS,
    ...valueExpressionOperators(BINARY),
    ...ARITHMETIC_OPERATORS,
    ...TYPE_OPERATORS,
  },
  pipeline: { ...pipelineOperators, ...BOUNDED_STAGES, ...NUMBER_ARGUMENT_STAGES, $group: valueGroup, $count: countStage },
  projection: projectionOperators,
  query: { ...queryOperators, ...LINEAR_REGEX_QUERY_OPERATORS, ...valueQueryOperators(BINARY), ...NUMERIC_QUERY_OPERATORS },
  window: windowOperators,
} as Parameters<typeof Context.init>[0])

/**
 * Options for every mingo query, projection, update and pipeline the engine runs. Scripts
 * (`$where`, `$function`, `$accumulator`) are disabled: over the wire protocol any client could
 * otherwise run JavaScript inside the server process. mingo then refuses them with an error.
 */
export const MINGO_OPTIONS = Object.freeze({ scriptEnabled: false, context: ENGINE_CONTEXT })
