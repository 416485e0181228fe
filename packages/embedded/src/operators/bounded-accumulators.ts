import { $push } from 'mingo/operators/accumulator'
import type { Options } from 'mingo/types'
import { HashMap } from 'mingo/util'
import { ELEMENT_BYTES, memorySize, rememberSize } from '../bson/value-size.js'
import { BuildMemory, memoryLimitOf } from './expression-memory.js'

/**
 * The accumulators that keep a value per document of a group (or a window of `$setWindowFields`):
 * `$push` and `$addToSet`, bounded as MongoDB bounds them (`internalQueryMaxPushBytes`,
 * `internalQueryMaxAddToSetBytes`, 100 MB each, expression-memory.ts): each value is measured as it
 * is added, and the group fails with MongoDB's error at the value that takes it past the limit.
 * Each value is made by mingo's own `$push` for its one document, so the expression sees the
 * document as mingo's accumulator shows it (`$$ROOT`, a missing value pushed as null).
 */
export const BOUNDED_ACCUMULATORS = {
  $push: boundedPush,
  $addToSet: boundedAddToSet,
}

/** A null expression: mingo's accumulators called on values already computed, which they return as they are. */
function boundedPush(collection: unknown[], expr: unknown, options: Options): unknown[] {
  if (expr === null || expr === undefined) return collection
  const memory = new BuildMemory('$push', memoryLimitOf(options), true)
  const result = new Array<unknown>(collection.length)
  for (let i = 0; i < collection.length; i++) {
    result[i] = pushedValue(collection[i], expr, options)
    memory.add(ELEMENT_BYTES + memorySize(result[i], memory.left))
  }
  return rememberSize(result, memory.bytes)
}

/** A value equal to one already in the set (mingo's deep equality) takes no more memory. */
function boundedAddToSet(collection: unknown[], expr: unknown, options: Options): unknown[] {
  const memory = new BuildMemory('$addToSet', memoryLimitOf(options), true)
  const set = HashMap.init<unknown, true>()
  for (const doc of collection) {
    const value = expr === null || expr === undefined ? doc : pushedValue(doc, expr, options)
    if (set.has(value)) continue
    set.set(value, true)
    memory.add(ELEMENT_BYTES + memorySize(value, memory.left))
  }
  return rememberSize(Array.from(set.keys()), memory.bytes)
}

function pushedValue(doc: unknown, expr: unknown, options: Options): unknown {
  return ($push([doc], expr, options) as unknown[])[0]
}
