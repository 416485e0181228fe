import { didYouMean } from '../did-you-mean.js'
import { HTTPException, SetupError } from '../errors.js'
import type { ShapeNode } from '../shapes/shape-node.js'
import type { ListQueryString, SortSpec } from './list-query.js'
import type { ListSpec } from './parse-client-query.js'
import { parseSort } from './parse-sort.js'

/** The top-level fields clients may sort on (`id`, `name`, `age`), for the message of a misspelt one. */
function sortableFields(sortable: ShapeNode): string[] {
  if (sortable.kind !== 'object') return []
  return [...sortable.fields.keys()].map((field) => (field === '_id' ? 'id' : field))
}

/**
 * The router's `defaultSort`, checked at registration by the very rule a request's `sort_by` meets,
 * as a function applying it to a request that sends no `sort_by` (its `order_by`/`sort_dir` still count).
 */
export function defaultSorter(option: { readonly field: string, readonly direction: 1 | -1 } | undefined, spec: ListSpec): ((query: ListQueryString) => SortSpec) | undefined {
  if (option === undefined) return undefined
  const isDocument = spec.filterContext.typed.kind === 'object' && spec.filterContext.typed.isDocument
  try {
    parseSort({ sort_by: option.field }, spec.sortable, isDocument)
  } catch (error) {
    if (!(error instanceof HTTPException)) throw error
    const fields = sortableFields(spec.sortable)
    const listed = fields.length === 0 ? '' : `: ${fields.join(', ')}`
    throw new SetupError('FMC_ERR_OPTIONS_INVALID', `CRUDRouter: 'defaultSort.field' ${JSON.stringify(option.field)} is not a sortable field (see 'sortable'${listed})${didYouMean(option.field, fields)}`)
  }
  return (query) => {
    const sort = parseSort({ ...query, sort_by: option.field }, spec.sortable, isDocument)!
    const clientDirection = query.order_by !== undefined || query.sort_dir !== undefined
    return clientDirection ? sort : { ...sort, direction: option.direction }
  }
}
