import type { ShapeNode } from '../shapes/model-shape.js'
import { refuseGuessedParameters } from './guessed-parameters.js'
import type { ListQuery, ListQueryString, SortSpec } from './list-query.js'
import { type FilterContext, parseFilter } from './parse-filter.js'
import { type PageLimits, parsePage } from './parse-page.js'
import { parseSort } from './parse-sort.js'

/** What a list (main, lookup children or embedded items) lets clients filter, sort and page by. */
export interface ListSpec {
  sortable: ShapeNode
  filterContext: FilterContext
  page: PageLimits
  /** The sort of a request that sends no `sort_by` (the router's `defaultSort`: query/default-sort.ts). */
  defaultSort?: ((query: ListQueryString) => SortSpec) | undefined
}

export function parseClientQuery(query: ListQueryString, spec: ListSpec): ListQuery {
  refuseGuessedParameters(query, spec.filterContext.visible)
  const isDocument = spec.filterContext.typed.kind === 'object' && spec.filterContext.typed.isDocument
  // A client's sort_by meets the filters' guard of references; the router's own defaultSort does not.
  const sort = (query.sort_by ?? '') === '' && spec.defaultSort !== undefined ? spec.defaultSort(query) : parseSort(query, spec.sortable, isDocument, spec.filterContext.guard)
  const page = parsePage(query, spec.page)
  return { filter: parseFilter(query.filters, spec.filterContext), sort, ...page }
}
