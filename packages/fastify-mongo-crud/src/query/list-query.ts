import type { Filter } from './filter.js'

/** A parsed list request, applied filter -> sort -> skip -> limit. */
export interface ListQuery {
  filter?: Filter | undefined
  sort?: SortSpec | undefined
  skip: number
  limit?: number | undefined
  /** `fields=`: the top-level fields to read and answer (`id` always); undefined reads them all. */
  fields?: readonly string[] | undefined
}

/** A path as clients name it (`id`, `address.city`) and its direction. */
export interface SortSpec {
  path: string
  direction: 1 | -1
}

/** The list route's query parameters, after the route schema validated their types. */
export interface ListQueryString {
  skip?: number
  limit?: number
  sort_by?: string
  order_by?: string
  sort_dir?: number
  filters?: string
  fields?: string
  cursor?: string
}

/**
 * The querystring schema of every list route: the single source for type validation and OpenAPI.
 * Messages the Python original answers word for word are produced by `queryIssueMessage` below.
 */
export const listQuerySchema = {
  type: 'object',
  properties: {
    skip: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Number of documents to skip.' },
    limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Maximum number of documents returned.' },
    sort_by: { type: 'string', description: 'Field to sort by (dotted paths allowed).' },
    order_by: {
      type: 'string',
      pattern: '^([Aa][Ss][Cc]|[Dd][Ee][Ss][Cc])$',
      description: 'Sort direction: ASC or DESC (case-insensitive). Ascending by default.',
    },
    sort_dir: { type: 'integer', enum: [1, -1], description: 'Sort direction: 1 ascending, -1 descending.' },
    filters: {
      type: 'string',
      description:
        'A JSON object in MongoDB filter syntax, e.g. {"age":{"$gte":18},"name":{"$regex":"^a","$options":"i"}}.',
    },
    fields: { type: 'string', description: 'Comma-separated fields to answer (`id` always comes back), e.g. name,email.' },
    cursor: {
      type: 'string',
      description: 'Opaque cursor of the next page, as given in the `Link: <...>; rel="next"` header of the previous one (not with skip).',
    },
  },
} as const


const PARAMETER_MESSAGES: Record<string, string> = {
  skip: 'skip must be an integer greater than or equal to 0',
  limit: 'limit must be an integer greater than or equal to 1',
  order_by: 'order_by must be either ASC or DESC',
  sort_dir: 'sort_dir must be either 1 or -1',
  sort_by: 'sort_by must be a single field name',
  filters: 'filters must be given once, as a JSON object',
  fields: 'fields must be given once, as a comma-separated list of field names',
  cursor: 'cursor must be given once, as the Link header gave it',
  // The `_groups` route's own parameters (query/group-query.ts).
  by: 'by must name the fields to group by, comma-separated (by=city,role) or repeated (by=city&by=role)',
  metrics: 'metrics must list the metrics, comma-separated (metrics=count,sum:age) or repeated (metrics=count&metrics=sum:age)',
}

/** The `detail` for the first issue of a querystring that failed the schema (a missing parameter is named by `required`). */
export function queryIssueDetail(issue: { instancePath: string, keyword: string, params: object } | undefined): string {
  const missing = issue?.keyword === 'required' ? (issue.params as { missingProperty?: unknown }).missingProperty : undefined
  const parameter = missing === undefined ? String(issue?.instancePath.split('/')[1] ?? 'query') : String(missing)
  return queryIssueMessage(parameter, issue?.keyword)
}

/** The `detail` for a querystring that failed the schema, naming the parameter. */
export function queryIssueMessage(parameter: string, keyword?: string): string {
  // `Infinity` and 1e30 coerce to numbers Ajv calls integers; the ceiling keeps them out.
  if (keyword === 'maximum') return `${parameter} must be at most ${Number.MAX_SAFE_INTEGER}`
  return PARAMETER_MESSAGES[parameter] ?? `${parameter} is invalid`
}
