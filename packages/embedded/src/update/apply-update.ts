import { update as mingoUpdate } from 'mingo/updater'
import { copyThroughBson } from '../bson/bson-codec.js'
import { toValueKey } from '../bson/value-key.js'
import type { Document } from '../document.js'
import { badValueError, conflictingUpdateError, immutableFieldError, invalidArgumentError } from '../errors.js'
import { formatValue } from '../format-value.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'
import { applySimpleUpdate } from './apply-simple-update.js'
import { checkUpdate } from './check-update.js'
import { expandPositional } from './expand-positional.js'
import { applyNumericOperators } from './numeric-update-operators.js'

/**
 * Applies an update document (operators only) to `doc` in place, with mingo's operator
 * semantics plus the server's checks. `filter` feeds the positional `$` operator.
 * Returns whether anything changed.
 */
export function applyUpdate(doc: Document, update: Document, filter: Document, arrayFilters: Document[] | undefined): boolean {
  assertOperatorsOnly(update)
  // Through BSON like a wire round-trip: undefined becomes null, and no caller object is aliased.
  const idBefore = toValueKey(doc['_id'])
  const modifier = withoutSameIdSet(copyThroughBson(update), idBefore)
  checkUpdate(doc, modifier, arrayFilters)
  let changed: boolean
  try {
    const concrete = expandPositional(doc, modifier, filter, arrayFilters)
    if (Object.keys(concrete).length === 0) return false
    // The numeric operators are the engine's (types kept as MongoDB keeps them); the rest is mingo's.
    const numeric = applyNumericOperators(doc, concrete)
    const rest = numeric.rest
    if (Object.keys(rest).length === 0) changed = numeric.changed
    else {
      const simple = applySimpleUpdate(doc, rest)
      if (simple !== undefined && !numeric.changed) return simple
      changed = (simple ?? mingoUpdate(doc, rest, undefined, undefined, { queryOptions: MINGO_OPTIONS }).length > 0) || numeric.changed
    }
  } catch (error) {
    throw toServerError(error as Error)
  }
  if (toValueKey(doc['_id']) !== idBefore) {
    throw immutableFieldError(`Performing an update on the path '_id' would modify the immutable field '_id'`)
  }
  return changed
}

/**
 * A `$set` (or `$setOnInsert`) of `_id` to the value it has is a no-op for MongoDB, not a change
 * to an immutable field (clients that send the whole document back do it on every update); it is
 * dropped here so that only a different value reaches the immutable-field check.
 */
function withoutSameIdSet(update: Document, idKey: string): Document {
  for (const op of ['$set', '$setOnInsert']) {
    const fields = update[op] as Document | undefined
    if (typeof fields !== 'object' || fields === null || !Object.hasOwn(fields, '_id')) continue
    if (toValueKey(fields['_id']) !== idKey) continue
    const { _id: _same, ...rest } = fields
    if (Object.keys(rest).length > 0) update[op] = rest
    else delete update[op]
  }
  return update
}

/**
 * Builds the document that replaces `current`: the replacement's fields, under the current
 * `_id`. A replacement carrying a different `_id` is refused, as by the server.
 */
export function buildReplacement(current: Document, replacement: Document): Document {
  if (Object.keys(replacement).some((k) => k.startsWith('$'))) {
    throw invalidArgumentError('Replacement document must not contain atomic operators')
  }
  const copy = copyThroughBson(replacement)
  if (Object.hasOwn(copy, '_id') && toValueKey(copy['_id']) !== toValueKey(current['_id'])) {
    throw immutableFieldError(`After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${formatValue(copy['_id'])}`)
  }
  const { _id: _ignored, ...fields } = copy
  return { _id: current['_id'], ...fields }
}

function assertOperatorsOnly(update: Document): void {
  const keys = Object.keys(update)
  if (keys.length === 0 || !keys.every((k) => k.startsWith('$'))) {
    throw invalidArgumentError('Update document requires atomic operators')
  }
}

function toServerError(error: Error) {
  if ((error as { code?: unknown }).code !== undefined) return error
  if (error.message.includes('immutable field')) return immutableFieldError(error.message)
  if (error.message.includes('conflict')) return conflictingUpdateError(error.message)
  return badValueError(error.message)
}
