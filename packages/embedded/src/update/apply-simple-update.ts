import { isEqual } from 'mingo/util'
import { type Document, isNonArrayObject } from '../document.js'

/** Names mingo refuses or treats specially as a path; such updates take mingo's own path. */
const SPECIAL = new Set(['_id', '__proto__', 'constructor', 'prototype'])

/**
 * The update every PATCH sends (`$set` and `$unset` of top-level fields), applied in place with
 * the semantics of mingo's updater: a `$set` to an equal value (mingo's `isEqual`) or an `$unset`
 * of an absent field changes nothing, new fields are appended in the update's order. mingo's
 * `update` builds a fresh operator context per call (copies of every operator table), which cost
 * more than the rest of a PATCH together. Answers whether anything changed, or undefined when the
 * update is not of that shape (then mingo applies it: dotted paths, other operators, conflicts).
 * `update` is the caller's own copy (no value of it is aliased elsewhere).
 */
export function applySimpleUpdate(doc: Document, update: Document): boolean | undefined {
  const set = update['$set'] as Document | undefined
  const unset = update['$unset'] as Document | undefined
  let operators = 0
  if (set !== undefined) operators++
  if (unset !== undefined) operators++
  if (operators === 0 || Object.keys(update).length !== operators) return undefined
  if (!simpleFields(set) || !simpleFields(unset)) return undefined
  // The same field set and unset is a conflict: mingo reports it.
  if (set !== undefined && unset !== undefined && Object.keys(unset).some((field) => Object.hasOwn(set, field))) return undefined
  let changed = false
  // Operators in the update's order, as mingo applies them.
  for (const op of Object.keys(update)) {
    const fields = update[op] as Document
    for (const field of Object.keys(fields)) {
      if (op === '$set') {
        if (Object.hasOwn(doc, field) && isEqual(doc[field], fields[field])) continue
        doc[field] = fields[field]
        changed = true
      } else if (Object.hasOwn(doc, field)) {
        const before = doc[field]
        delete doc[field]
        if (!isEqual(before, undefined)) changed = true
      }
    }
  }
  return changed
}

function simpleFields(fields: Document | undefined): boolean {
  if (fields === undefined) return true
  if (!isNonArrayObject(fields)) return false
  for (const field of Object.keys(fields)) {
    if (field.length === 0 || field.includes('.') || field.startsWith('$') || SPECIAL.has(field)) return false
  }
  return true
}
