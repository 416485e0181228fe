import { isRecord } from '../is-record.js'
import { invalidParameter } from './data-api-error.js'

/**
 * Reading and writing a dotted path of a wire document as MongoDB's update operators do: a numeric
 * segment indexes an array, a missing object on the way is created, and a path through a value that
 * holds no fields (a number, text, an array reached by a field name) is refused with MongoDB's words.
 */

const INDEX = /^(?:0|[1-9][0-9]*)$/

/** The value at `path`; undefined when any step is missing. */
export function valueAt(doc: unknown, path: readonly string[]): unknown {
  let at: unknown = doc
  for (const segment of path) {
    if (Array.isArray(at) && INDEX.test(segment)) at = at[Number(segment)]
    else if (isRecord(at) && !Array.isArray(at)) at = Object.hasOwn(at, segment) ? at[segment] : undefined
    else return undefined
  }
  return at
}

/** Sets `value` at `path`, creating the objects on the way (an array index past the end pads with null, as MongoDB does). */
export function setValueAt(doc: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const parent = containerOf(doc, path, true)!
  const last = path[path.length - 1]!
  if (Array.isArray(parent)) {
    const index = Number(last)
    while (parent.length < index) parent.push(null)
    parent[index] = value
  } else parent[last] = value
}

/** Removes `path`: a field is deleted, an array item becomes null (MongoDB keeps the array's positions). */
export function unsetValueAt(doc: Record<string, unknown>, path: readonly string[]): void {
  const parent = containerOf(doc, path, false)
  if (parent === undefined) return
  const last = path[path.length - 1]!
  if (Array.isArray(parent)) {
    if (Number(last) < parent.length) parent[Number(last)] = null
  } else delete parent[last]
}

/** The object or array holding the last segment of `path`; created on the way when `create`, else undefined when missing. */
function containerOf(doc: Record<string, unknown>, path: readonly string[], create: boolean): Record<string, unknown> | unknown[] | undefined {
  let at: Record<string, unknown> | unknown[] = doc
  for (const [index, segment] of path.slice(0, -1).entries()) {
    const next: unknown = Array.isArray(at) ? (INDEX.test(segment) ? at[Number(segment)] : refuse(path, index, at)) : at[segment]
    if (next === undefined || next === null) {
      if (!create) return undefined
      const made = {}
      if (Array.isArray(at)) at[Number(segment)] = made
      else at[segment] = made
      at = made
    } else if (typeof next === 'object') at = next as Record<string, unknown> | unknown[]
    else return create ? refuse(path, index + 1, next) : undefined
  }
  const last = path[path.length - 1]!
  if (Array.isArray(at) && !INDEX.test(last)) return create ? refuse(path, path.length - 1, at) : undefined
  return at
}

function refuse(path: readonly string[], index: number, at: unknown): never {
  throw invalidParameter(`update: cannot create field '${path[index]}' in element ${JSON.stringify(at)} (the path '${path.join('.')}')`)
}
