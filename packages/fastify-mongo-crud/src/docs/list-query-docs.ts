import type { RouteOptions } from 'fastify'
import type { ListSpec } from '../query/parse-client-query.js'
import type { PageLimits } from '../query/parse-page.js'
import { isGroupsUrl } from '../route-names.js'
import type { ShapeNode } from '../shapes/model-shape.js'

/**
 * The keyword under which a schema carries what only the OpenAPI document shows. The validator ignores
 * it (an unknown keyword), `openapiTransform` merges it into the documented schema: validation stays
 * exactly the route's, and the document lists what the server checks in code (sortable fields, the
 * router's `maxLimit`), which no regular expression says readably.
 */
export const DOCS_KEYWORD = 'x-fmc-docs'

/**
 * The vendor extension of the `filters` parameter listing the paths a filter may name (the output model's,
 * or `filterable`), as `sort_by`'s enum lists the sortable ones: what the admin page's filter builder offers.
 */
export const FILTERABLE_EXTENSION = 'x-filterable'

/** Sortable (and filterable) paths listed at most; a model with more documents `sort_by` as a plain string. */
const MAX_LISTED_PATHS = 200

/**
 * What `filters` says on a list that ignores it: a scoped list whose router does not AND client filters
 * with the scope (the default). Clients would otherwise read a filtered answer into a whole one.
 */
export const FILTERS_IGNORED =
  'Ignored on this list: it answers the documents the caller may access, whatever filters says (it is accepted, and not checked).'

/**
 * The list route with its query parameters documented for this router: `sort_by` as an enum of the
 * sortable paths, `order_by` as ASC/DESC, `skip` and `limit` with the router's maxima and examples,
 * and `filters` with the filterable paths (`x-filterable`), or as ignored where the list ignores it.
 */
export function withListQueryDocs(route: RouteOptions, spec: Pick<ListSpec, 'sortable' | 'filterContext'>, page: PageLimits, filtersIgnored = false): RouteOptions {
  const schema = route.schema as { querystring?: { properties: Record<string, object> } } | undefined
  const querystring = schema?.querystring
  // Only a list's query is documented here: GET one's (`fields` alone) gained untyped `skip`, `limit`, `sort_by`
  // and `order_by` parameters it does not take. A `_groups` route documents its own (routes/groups-route.ts).
  if (querystring?.properties['skip'] === undefined || isGroupsUrl(route.url)) return route
  const { skip, limit, sort_by, order_by, filters, ...rest } = querystring.properties
  const paths = listedPaths(spec.sortable)
  const filterable = listedPaths(spec.filterContext.visible)
  const limitExample = Math.min(page.defaultLimit ?? 20, page.maxLimit ?? 20)
  const properties = {
    skip: { ...skip, [DOCS_KEYWORD]: { maximum: page.maxSkip, examples: [0] } },
    limit: {
      ...limit,
      [DOCS_KEYWORD]: {
        // Unset maxima are removed from the document: the validator's safe-integer ceiling is not a limit anyone chose.
        maximum: page.maxLimit,
        examples: [limitExample],
        ...(page.defaultLimit === undefined ? {} : { default: page.defaultLimit }),
      },
    },
    sort_by: { ...sort_by, ...(paths === undefined ? {} : { [DOCS_KEYWORD]: { enum: paths } }) },
    order_by: {
      ...order_by,
      [DOCS_KEYWORD]: { pattern: undefined, enum: ['ASC', 'DESC'], description: 'Sort direction: ASC or DESC (case-insensitive: asc and desc too). Ascending by default.' },
    },
    ...(filters === undefined ? {} : { filters: { ...filters, [DOCS_KEYWORD]: filtersIgnored ? { description: FILTERS_IGNORED } : { [FILTERABLE_EXTENSION]: filterable } } }),
    ...rest,
  }
  return { ...route, schema: { ...schema, querystring: { ...querystring, properties } } }
}

/**
 * Every path of the shape (those `sort_by` or `filters` accept), in the API's names (`id`, `address.city`);
 * undefined when they cannot be listed (an open object accepts any name below it) or are too many to list.
 */
function listedPaths(shape: ShapeNode): string[] | undefined {
  const paths: string[] = []
  function walk(node: ShapeNode, path: string): boolean {
    while (node.kind === 'array') node = node.item
    if (node.kind !== 'object') {
      if (path !== '') paths.push(path)
      return true
    }
    if (node.open) return false
    for (const [name, child] of node.fields) {
      const api = path === '' && name === '_id' ? 'id' : name
      if (!walk(child, path === '' ? api : `${path}.${api}`)) return false
    }
    return true
  }
  if (!walk(shape, '') || paths.length > MAX_LISTED_PATHS) return undefined
  return paths
}
