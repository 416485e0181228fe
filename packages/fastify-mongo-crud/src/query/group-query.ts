import type { Filter } from './filter.js'
import { listQuerySchema } from './list-query.js'

/**
 * A grouping of a list's documents (docs/groups.md), in the API's names: `by` paths as clients name
 * them (`id`, `address.city`), metrics over such paths. The store runs it as one aggregation:
 * filter -> group -> sort -> skip -> limit.
 */
export interface GroupQuery {
  filter?: Filter | undefined
  /** The paths whose combination of values makes a group; a missing value groups as null. */
  by: readonly string[]
  metrics: readonly GroupMetric[]
  /** Ordered by one `by` path or one metric (their index), then by the `by` values, ascending. */
  sort: { readonly key: GroupSortKey, readonly direction: 1 | -1 } | undefined
  skip: number
  limit: number
}

export type GroupSortKey = { readonly by: number } | { readonly metric: number }

/**
 * One value computed per group. `exact` sums also add up the magnitudes of their values: a sum of
 * integers is exact as long as that total fits a double's integers, which the answer checks.
 */
export type GroupMetric = { readonly op: 'count' } | { readonly op: 'sum' | 'avg' | 'min' | 'max', readonly path: string, readonly exact?: boolean }

/** One group as the store read it: its `by` values and its metrics, in the query's order, and the magnitudes of exact sums. */
export interface GroupRow {
  readonly keys: readonly unknown[]
  readonly values: readonly unknown[]
  /** For each metric, the sum of the magnitudes of its values when it is an exact sum; else undefined. */
  readonly magnitudes: readonly unknown[]
  /**
   * For each metric, whether the database answered a number no JSON number holds exactly (a 64-bit
   * integer past 2^53, a decimal of more digits than a double keeps): the answer refuses it rather
   * than round it or send its digits as a string.
   */
  readonly inexact: readonly boolean[]
}

/** The `_groups` route's query parameters, after the route schema validated their types. */
export interface GroupsQueryString {
  /** `by=city,role`, or repeated (`by=city&by=role`): a list, each item comma-separated too. */
  by?: string | readonly string[]
  metrics?: string | readonly string[]
  filters?: string
  sort_by?: string
  order_by?: string
  sort_dir?: number
  skip?: number
  limit?: number
}

const { skip, limit, order_by, sort_dir, filters } = listQuerySchema.properties

/**
 * A list parameter: comma-separated (`by=city,role`, the form OpenAPI documents as `style: form,
 * explode: false`) or repeated (`by=city&by=role`, what openapi-fetch and most clients send for an
 * array), which the querystring parser hands on as an array.
 */
const commaList = <D extends string>(minLength: number, description: D) => ({ type: ['string', 'array'], minLength, items: { type: 'string' }, description }) as const

/** The querystring schema of every `_groups` route: the list's paging, sorting and filter parameters, with `by` and `metrics`. */
export const groupsQuerySchema = {
  type: 'object',
  required: ['by'],
  properties: {
    by: commaList(1, 'Fields whose combination of values makes a group: by=city, or by=city,role (by=city&by=role too). A missing value groups as null.'),
    metrics: commaList(
      0,
      'Values computed per group: count, sum:<field>, avg:<field>, min:<field>, max:<field> (answered as count, sum_<field>, ...), comma-separated or repeated. Default: count.'
    ),
    filters: { ...filters, description: `${filters.description} Applied before grouping.` },
    sort_by: { type: 'string', description: 'A by field or a metric name (count, sum_age...). Default: the by fields.' },
    order_by,
    sort_dir,
    skip: { ...skip, description: 'Number of groups to skip.' },
    limit: { ...limit, description: 'Maximum number of groups returned.' },
  },
} as const
