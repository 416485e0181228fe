import { Context } from 'mingo/core'
import * as accumulatorOperators from 'mingo/operators/accumulator'
import * as expressionOperators from 'mingo/operators/expression'
import * as pipelineOperators from 'mingo/operators/pipeline'
import * as projectionOperators from 'mingo/operators/projection'
import * as queryOperators from 'mingo/operators/query'
import * as windowOperators from 'mingo/operators/window'
import { BOUNDED_ACCUMULATORS } from './bounded-accumulators.js'
import { BOUNDED_ARRAY_LOOPS } from './bounded-array-loops.js'
import { BOUNDED_ARRAY_OPERATORS } from './bounded-array-operators.js'
import { BOUNDED_STAGES } from './bounded-stages.js'
import { BOUNDED_STRING_OPERATORS } from './bounded-string-operators.js'
import { LINEAR_REGEX_EXPRESSION_OPERATORS, LINEAR_REGEX_QUERY_OPERATORS } from './regex-operators.js'

/**
 * mingo's operators, with those that run a client's regular expression replaced by linear-time ones
 * (regex-operators.ts), and those that would build arrays, strings or documents without bound
 * replaced by ones that measure what they build (expression-memory.ts, bounded-*.ts). mingo's
 * `Query` and `Aggregator` from the package root merge a caller's context *under* their own
 * built-ins, so the engine uses the base classes (`mingo/query`, `mingo/aggregator`,
 * `mingo/updater`) with this complete context instead.
 */
const ENGINE_CONTEXT = Context.init({
  accumulator: { ...accumulatorOperators, ...BOUNDED_ACCUMULATORS },
  expression: { ...expressionOperators, ...LINEAR_REGEX_EXPRESSION_OPERATORS, ...BOUNDED_ARRAY_OPERATORS, ...BOUNDED_ARRAY_LOOPS, ...BOUNDED_STRING_OPERATORS },
  pipeline: { ...pipelineOperators, ...BOUNDED_STAGES },
  projection: projectionOperators,
  query: { ...queryOperators, ...LINEAR_REGEX_QUERY_OPERATORS },
  window: windowOperators,
} as Parameters<typeof Context.init>[0])

/**
 * Options for every mingo query, projection, update and pipeline the engine runs. Scripts
 * (`$where`, `$function`, `$accumulator`) are disabled: over the wire protocol any client could
 * otherwise run JavaScript inside the server process. mingo then refuses them with an error.
 */
export const MINGO_OPTIONS = Object.freeze({ scriptEnabled: false, context: ENGINE_CONTEXT })
