import { Aggregator } from 'mingo/aggregator'
import * as pipelineOperators from 'mingo/operators/pipeline'
import { copyThroughBson } from '../bson/bson-codec.js'
import { toValueKey } from '../bson/value-key.js'
import { checkFieldPaths } from '../check-field-path.js'
import { type Document, isNonArrayObject } from '../document.js'
import { asServerError, immutableFieldError, invalidOptionsError, stageShapeError, typeMismatchError, unknownStageError } from '../errors.js'
import { formatValue } from '../format-value.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import type { Variables } from '../query/let-variables.js'

/** The stages MongoDB runs in an update pipeline; each is given one document and answers one. */
const UPDATE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith'])

/** Stages that exist but cannot run in an update (72), as opposed to names that are no stage at all (40324). */
const OTHER_STAGES = new Set([
  ...Object.keys(pipelineOperators),
  ...['$changeStream', '$collStats', '$currentOp', '$geoNear', '$indexStats', '$listSessions', '$listLocalSessions', '$planCacheStats', '$search', '$searchMeta', '$vectorSearch'],
])

/** True when `change` is an update pipeline (`[{ $set: ... }, ...]`), not an update document or a replacement. */
export function isPipelineUpdate(change: unknown): change is Document[] {
  return Array.isArray(change)
}

/** The server's checks on an update pipeline, before any document is read. */
export function checkPipelineUpdate(stages: unknown[]): asserts stages is Document[] {
  for (const stage of stages) {
    if (!isNonArrayObject(stage)) {
      throw typeMismatchError("Each element of the 'pipeline' array must be an object")
    }
    const names = Object.keys(stage)
    if (names.length !== 1) throw stageShapeError()
    const name = names[0]!
    if (UPDATE_STAGES.has(name)) continue
    if (OTHER_STAGES.has(name)) throw invalidOptionsError(`${name} is not allowed to be used within an update`)
    throw unknownStageError(name)
  }
  // Stages build documents from client paths (check-field-path.ts).
  checkFieldPaths(stages)
}

/**
 * The document an update pipeline makes of `doc`, as the server applies it: the pipeline's output
 * replaces the document, keeping its `_id` when the output has none (and first, as stored), and a
 * different `_id` is refused (66 ImmutableField). Top-level `$`-prefixed and dotted field names the
 * stages produce (`$setField`, `$replaceWith`) are valid here, as on MongoDB 5.0+.
 */
export function applyPipelineUpdate(doc: Document, stages: Document[], variables: Variables | undefined): Document {
  let output: Document[]
  try {
    output = new Aggregator(stages, variables === undefined ? MINGO_OPTIONS : { ...MINGO_OPTIONS, variables }).run([copyThroughBson(doc)]) as Document[]
  } catch (error) {
    throw asServerError(error)
  }
  const { _id, ...fields } = output[0]!
  if (_id === undefined) return Object.hasOwn(doc, '_id') ? { _id: doc['_id'], ...fields } : fields
  if (Object.hasOwn(doc, '_id') && toValueKey(_id) !== toValueKey(doc['_id'])) {
    throw immutableFieldError(`After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(_id)}`)
  }
  return { _id, ...fields }
}
