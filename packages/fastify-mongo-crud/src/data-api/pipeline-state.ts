import type { FilterContext } from '../query/parse-filter.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import type { ObjectIds } from '../shapes/object-id.js'
import { invalidParameter } from './data-api-error.js'
import { type Hint, hintAtPath } from './type-hints.js'

/**
 * What the documents look like at one point of an aggregate: the paths a stage may name (each stage
 * names only those the previous stages left: after the first `$project`, never a hidden one), where
 * filters and sorts may look, and the BSON types of their values (type-hints.ts).
 */
export interface PipelineState {
  readonly shape: ShapeNode
  readonly hints: Hint
  /** Where `$match` may look and how its values are typed: the router's filter grammar before any stage reshapes the documents, the documents' shape after. */
  readonly filter: FilterContext
  /** Where `$sort` may look: the router's sortable fields at first, the documents' shape after. */
  readonly sortable: ShapeNode
  /** The shape a `$match` is compiled against (ObjectId fields, `_id`). */
  readonly typed: ShapeNode
  readonly ids: ObjectIds
  /**
   * Fields some role of the router does not see: never grouped, gathered, renamed, unwound, joined on,
   * filtered or sorted on, by any caller (as on the routes), though a role that sees them is shown them.
   */
  readonly restricted: ReadonlySet<string>
}

/** A state whose documents a stage reshaped: every path of them may be filtered and sorted on, as typed as the shape says. */
export function reshaped(state: PipelineState, shape: ShapeNode, hints: Hint): PipelineState {
  const usable = usableShape(shape, state.restricted)
  return { ...state, shape, hints, filter: { ...state.filter, visible: usable, typed: shape, guard: undefined }, sortable: usable, typed: shape }
}

/** The shape a stage may read values of: the documents' fields, less those some role does not see. */
function usableShape(shape: ShapeNode, restricted: ReadonlySet<string>): ShapeNode {
  if (restricted.size === 0 || shape.kind !== 'object') return shape
  return { ...shape, fields: new Map([...shape.fields].filter(([name]) => !restricted.has(name))) }
}

/** An object shape of named fields (a `$group`'s, a `$project`'s). */
export function objectShape(fields: Iterable<readonly [string, ShapeNode]>): ShapeNode {
  return { kind: 'object', fields: new Map(fields), isDocument: false, open: false }
}

/** An object hint of named fields. */
export function objectHint(fields: Iterable<readonly [string, Hint]>): Hint {
  const present = [...fields].filter((entry): entry is [string, NonNullable<Hint>] => entry[1] !== undefined)
  return present.length === 0 ? undefined : { kind: 'object', fields: new Map(present) }
}

const FORBIDDEN: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', '_bsontype'])

/** A field name a stage creates (`$count`'s, `$lookup`'s `as`, a `$group` output): one segment, not an operator. */
export function newFieldName(name: unknown, at: string): string {
  if (typeof name !== 'string' || name === '' || name.startsWith('$') || name.includes('.') || FORBIDDEN.has(name)) {
    throw invalidParameter(`aggregate: ${at} must be a field name (no '$', no '.')`)
  }
  return name
}

/** A path the documents have, as a stage names it (`"address.city"`, or `"$address.city"` where it refers to a value), with its shape and hint. */
export function pathIn(state: PipelineState, raw: unknown, at: string, reference: boolean, readsValue = false): { path: string, node: ShapeNode, hint: Hint } {
  if (typeof raw !== 'string' || (reference && !raw.startsWith('$'))) throw invalidParameter(`aggregate: ${at} must be a ${reference ? '"$field" path' : 'field path'}`)
  if (reference && raw.startsWith('$$')) throw invalidParameter(`aggregate: ${at}: the variable ${raw} is not supported`)
  const path = reference ? raw.slice(1) : raw
  const segments = path.split('.')
  if (segments.some((segment) => segment === '' || segment.startsWith('$') || FORBIDDEN.has(segment))) throw invalidParameter(`aggregate: ${at}: "${path}" is not a valid field path`)
  // A value read (a "$field" reference, a join's local field) may not be one some role does not see.
  const node = nodeAt(reference || readsValue ? usableShape(state.shape, state.restricted) : state.shape, segments)
  // A hidden field is refused as an unknown one is: the documents no longer have it.
  if (node === undefined) throw invalidParameter(`aggregate: ${at}: field "${path}" is not a field of the documents`)
  return { path, node, hint: hintAtPath(state.hints, segments) }
}
