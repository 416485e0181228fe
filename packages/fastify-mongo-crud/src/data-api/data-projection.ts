import { HTTPException } from '../errors.js'
import { isRecord } from '../is-record.js'
import { checkClientPath } from '../query/check-client-path.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { invalidParameter } from './data-api-error.js'
import { projectionOf } from './visible-fields.js'

type Document = Record<string, unknown>

/** A request's `projection`: what the database is asked for, and what is removed from each answer after. */
export interface DataProjection {
  /**
   * The database's projection: the caller's visible paths, narrowed to the included ones. Undefined
   * without a `projection`: the whole document is read and pruned after, as the list route does (a
   * projection costs the engine more than it saves on a page).
   */
  readonly database: Document | undefined
  /** Removes the excluded paths (and `_id` when excluded) from a pruned document. */
  apply(doc: Document): Document
}

/**
 * `{ "name": 1, "email": 1 }` (inclusion) or `{ "notes": 0 }` (exclusion), `_id` excluded by `"_id": 0`
 * in either, as MongoDB takes them. Only paths the caller sees may be named: a hidden field is refused
 * as an unknown one is, in the same words. Projection operators (`$slice`, `$elemMatch`) and
 * expressions are refused: the database is asked only for visible paths, never computed values.
 */
export function dataProjection(raw: unknown, shown: ShapeNode, hidden: ReadonlySet<string>): DataProjection {
  if (raw === undefined) return { database: undefined, apply: (doc) => doc }
  const visible = projectionOf(shown, hidden)
  if (!isRecord(raw)) throw invalidParameter("'projection' must be an object of fields and 0 or 1")
  const included: string[] = []
  const excluded: string[] = []
  let withoutId = false
  for (const [path, value] of Object.entries(raw)) {
    if (value !== 0 && value !== 1 && value !== true && value !== false) {
      throw invalidParameter(`projection: the value of "${path}" must be 0 or 1 (projection operators and expressions are not supported)`)
    }
    const keep = value === 1 || value === true
    if (path === '_id') {
      withoutId = !keep
      continue
    }
    const segments = rephrased(() => checkClientPath('fields', path))
    if (hidden.has(segments[0]!) || nodeAt(shown, segments) === undefined) throw invalidParameter(`projection: "${path}" is not a field of the output model`)
    ;(keep ? included : excluded).push(path)
  }
  if (included.length > 0 && excluded.length > 0) throw invalidParameter('projection: inclusion and exclusion cannot be mixed (but for _id)')
  const database = included.length === 0 ? { ...visible } : narrowed(visible, included)
  if (withoutId && included.length > 0) database['_id'] = 0
  const removed = [...excluded, ...(withoutId && included.length === 0 ? ['_id'] : [])].map((path) => path.split('.'))
  return { database, apply: (doc) => (removed.length === 0 ? doc : removedPaths(doc, removed)) }
}

/** The visible projection narrowed to the included paths: a visible path under an included one, or an included path under a visible one. */
function narrowed(visible: Document, included: readonly string[]): Document {
  // An exclusion projection (an open model) excludes only hidden fields: the included paths are all it reads.
  const inclusion = Object.values(visible).every((value) => value === 1)
  if (!inclusion || Object.keys(visible).length === 0) return Object.fromEntries(included.map((path) => [path, 1]))
  const out: Document = {}
  for (const path of Object.keys(visible)) {
    for (const wanted of included) {
      if (wanted === path || path.startsWith(`${wanted}.`)) out[path] = 1
      else if (wanted.startsWith(`${path}.`)) out[wanted] = 1
    }
  }
  return out
}

/** The document without the paths: changed in place (each answer's documents are its own, fresh from the database). */
function removedPaths(doc: Document, paths: readonly string[][]): Document {
  for (const path of paths) remove(doc, path)
  return doc
}

function remove(value: unknown, path: readonly string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) remove(item, path)
    return
  }
  if (!isRecord(value)) return
  const [head, ...rest] = path
  if (rest.length === 0) delete value[head!]
  else remove(value[head!], rest)
}

function rephrased<T>(check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof HTTPException) throw invalidParameter(String(error.detail).replace(/^fields: /, 'projection: '))
    throw error
  }
}
