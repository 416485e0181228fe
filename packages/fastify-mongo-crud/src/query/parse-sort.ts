import { invalidQuery } from '../errors.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { checkClientPath, checkReference, type ReferenceGuard } from './check-client-path.js'
import type { ListQueryString, SortSpec } from './list-query.js'

/**
 * `sort_by` with `order_by` (ASC/DESC) or `sort_dir` (1/-1). Both may be sent only if they agree:
 * silently preferring one would sort the opposite way from what half the clients meant.
 * The direction is validated even without `sort_by`, so a typo never passes unnoticed.
 */
export function parseSort(query: ListQueryString, visible: ShapeNode, isDocument: boolean, guard?: ReferenceGuard): SortSpec | undefined {
  const direction = parseDirection(query)
  if (query.sort_by === undefined || query.sort_by === '') return undefined
  // Checked before the shape is asked: below an open field (`Type.Record`) the shape accepts any name.
  const segments = checkClientPath('sort_by', query.sort_by)
  // The query names the identifier `id`, as clients do (the store sorts by `_id`); the shapes name it `_id`.
  const identifier = (segments[0] === 'id' || segments[0] === '_id') && isDocument
  if (identifier) segments[0] = '_id'
  if (nodeAt(visible, segments) === undefined) throw invalidQuery(`sort_by: field "${query.sort_by}" is not sortable`)
  checkReference('sort_by', query.sort_by, segments[0]!, guard)
  if (identifier) segments[0] = 'id'
  return { path: segments.join('.'), direction: direction ?? 1 }
}

/** The direction `order_by` or `sort_dir` sends (they must agree when both are sent); undefined when neither is. */
export function parseDirection(query: Pick<ListQueryString, 'order_by' | 'sort_dir'>): 1 | -1 | undefined {
  let direction: 1 | -1 | undefined
  if (query.order_by !== undefined) {
    const order = query.order_by.toUpperCase()
    if (order !== 'ASC' && order !== 'DESC') throw invalidQuery('order_by must be either ASC or DESC')
    direction = order === 'ASC' ? 1 : -1
  }
  if (query.sort_dir !== undefined) {
    if (query.sort_dir !== 1 && query.sort_dir !== -1) throw invalidQuery('sort_dir must be either 1 or -1')
    if (direction !== undefined && direction !== query.sort_dir) throw invalidQuery('order_by and sort_dir disagree')
    direction = query.sort_dir
  }
  return direction
}
