/**
 * The filter AST: what a client's `filters` parameter (or a row scope) becomes after the closed
 * grammar accepted it. Routes, scopes and relations build and combine these, in the API's own
 * terms: paths name fields as clients see them (`id`, not `_id`), ObjectIds are lowercase 24-hex
 * strings. Only `src/store/` turns them into a database query (`_id`, ObjectIds), guided by the
 * model's shape, as it does for documents.
 */

export type FilterValue = string | number | boolean | null | FilterValue[] | { [key: string]: FilterValue }

export type Condition =
  | { op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte', value: FilterValue }
  | { op: 'in' | 'nin' | 'all', values: FilterValue[] }
  | { op: 'exists', value: boolean }
  | { op: 'size', value: number }
  | { op: 'regex', pattern: string, options: string }
  | { op: 'not', conditions: Condition[] }
  /** `$elemMatch` with operators applied to the element itself (`{ $elemMatch: { $gt: 3 } }`). */
  | { op: 'elemMatchValue', conditions: Condition[] }
  /** `$elemMatch` with a filter over the element's fields (`{ $elemMatch: { qty: { $gt: 3 } } }`). */
  | { op: 'elemMatchDoc', filter: Filter }

export type Filter =
  | { kind: 'and' | 'or' | 'nor', items: Filter[] }
  | { kind: 'field', path: string, conditions: Condition[] }

export const fieldEquals = (path: string, value: FilterValue): Filter => ({
  kind: 'field',
  path,
  conditions: [{ op: 'eq', value }],
})

/** A filter no document matches (`id` in an empty set): what an unusable scope or policy filter becomes. */
export const MATCH_NOTHING: Filter = { kind: 'field', path: 'id', conditions: [{ op: 'in', values: [] }] }

/** AND of the given filters, dropping absent ones; `undefined` when nothing is left (match all). */
export function allOf(...filters: Array<Filter | undefined>): Filter | undefined {
  const present = filters.filter((f): f is Filter => f !== undefined)
  if (present.length <= 1) return present[0]
  return { kind: 'and', items: present }
}
