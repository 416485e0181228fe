import { evalExpr } from 'mingo/core'
import { type Iterator, Lazy } from 'mingo/lazy'
import type { Options } from 'mingo/types'
import { toMatchKey } from '../bson/value-key.js'
import { isPlainObject } from '../document.js'
import { badValueError } from '../errors.js'
import type { Deadline } from '../pace/deadline.js'
import { PAUSE, type Pause } from '../pace/pause.js'
import { slicesOf } from './stage-slices.js'

/**
 * `$group`, grouping as MongoDB does: by value, so that 1 as an int, a long, a double and a decimal
 * is one group (mingo's groups hash a Long and a number apart), and a missing key with null (the
 * group's `_id` is null). The group's `_id` is the first key found, with its own type. Otherwise
 * mingo's: its accumulators (or the engine's, numeric-accumulators.ts) run over each group's
 * documents, in the order the groups were first met.
 */
export function valueGroup(collection: Iterator, expr: Record<string, unknown>, options: Options): Iterator {
  if (!isPlainObject(expr) || !Object.hasOwn(expr, '_id')) throw badValueError("a group specification must include an _id")
  // A top-level `$group` the engine set up to work in slices (stage-slices.ts) pulls its input as it groups
  // (mingo's iterator is iterable; its type says `done: boolean` where TypeScript wants a literal).
  const deadline = slicesOf(expr)
  if (deadline !== undefined) return Lazy(grouped(collection as unknown as Iterable<unknown>, expr, options, deadline))
  return collection.transform((items) => Lazy([...grouped(items, expr, options)]))
}

/**
 * The groups of `items`, in the order they were first met; with a `deadline`, a PAUSE wherever a slice
 * of the work is used up (counted in documents grouped, then in documents each group's accumulators read).
 */
function* grouped(items: Iterable<unknown>, expr: Record<string, unknown>, options: Options, deadline?: Deadline): Generator<Record<string, unknown> | Pause> {
  const idExpr = expr['_id']
  const fields = Object.keys(expr).filter((key) => key !== '_id')
  const groups = new Map<string, { id: unknown, members: unknown[] }>()
  for (const item of items) {
    const id = evalExpr(item as object, idExpr, options)
    const key = toMatchKey(id)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, { id: id ?? null, members: [item] })
    else group.members.push(item)
    if (deadline !== undefined && sliceUsed(deadline, 1)) yield PAUSE
  }
  for (const { id, members } of groups.values()) {
    const out: Record<string, unknown> = { _id: id }
    const groupOptions = forGroup(options, id)
    for (const field of fields) out[field] = evalExpr(members, expr[field], groupOptions)
    yield out
    if (deadline !== undefined && sliceUsed(deadline, members.length)) yield PAUSE
  }
}

/** Counts `units` of work done; whether the slice is used up. */
function sliceUsed(deadline: Deadline, units: number): boolean {
  deadline.tick(units)
  return deadline.due()
}

/**
 * The options mingo's own `$group` evaluates a group's accumulators with: a fresh root, and the
 * group's `_id` (which `$firstN`'s `n` and `$accumulator` may read). mingo does not export the class
 * of its options; the instance a stage is given makes a fresh one.
 */
function forGroup(options: Options, id: unknown): Options {
  const init = (options as { constructor?: { init?: (options: Options) => { update(locals: object): Options } } }).constructor?.init
  return init === undefined ? options : init(options).update({ root: null, groupId: id })
}
