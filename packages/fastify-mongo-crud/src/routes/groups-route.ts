import type { RouteOptions } from 'fastify'
import type { RouterContext } from '../core/router-context.js'
import { DOCS_KEYWORD, FILTERS_IGNORED } from '../docs/list-query-docs.js'
import { groupsHandler } from '../http/handlers.js'
import type { ResolvedRouterOptions } from '../options.js'
import type { GroupFields } from '../query/group-fields.js'
import { groupsQuerySchema } from '../query/group-query.js'
import { MAX_BY_FIELDS, MAX_METRICS } from '../query/parse-group-query.js'
import type { Resource } from '../resources/resource.js'
import { GROUPS_SEGMENT } from '../route-names.js'
import { validationErrorRef } from '../schema/error-schemas.js'

/**
 * GET <prefix>/_groups: the router's documents grouped and measured (docs/groups.md). It reads the
 * list, so the list's guards are its own: `dependenciesGetAll`, and `disableGetAll` leaves it out.
 */
export function buildGroupsRoute(context: RouterContext, resource: Resource): RouteOptions {
  const { options } = context
  const schema = groupsRouteSchema(resource.groupFields, options, options.filterDependency !== undefined && options.filtersUnderScope === 'ignore')
  const route = context.routeOptions('GetAll', schema.responses)
  return { method: 'GET', url: `/${GROUPS_SEGMENT}`, ...route, schema: { ...route.schema, ...schema.extra }, handler: groupsHandler(resource) }
}

/**
 * What documents a `_groups` route of any kind: its query parameters (with the router's limits) and an
 * answer whose items name every field `by` accepts, with its model type, and every metric of them.
 */
export function groupsRouteSchema(fields: GroupFields, options: Pick<ResolvedRouterOptions, 'maxGroups' | 'maxSkip'>, filtersIgnored: boolean) {
  const { by, sort_by, skip, limit, filters, ...rest } = groupsQuerySchema.properties
  const listed = [...fields.listed.keys()]
  const fieldsSaid = listed.length === 0 ? '' : ` Fields: ${listed.join(', ')}${fields.complete ? '' : ', and the fields under open objects'}.`
  const querystring = {
    ...groupsQuerySchema,
    // Lists travel as `by=city,role` (`by=city&by=role` is accepted too, see group-query.ts).
    [DOCS_KEYWORD]: { style: 'form', explode: false },
    properties: {
      by: { ...by, description: `${by.description}${fieldsSaid}`, [DOCS_KEYWORD]: listDocs(fields, [...fields.listed.keys()], MAX_BY_FIELDS) },
      metrics: { ...rest.metrics, [DOCS_KEYWORD]: listDocs(fields, metricNames(fields), MAX_METRICS) },
      filters: filtersIgnored ? { ...filters, [DOCS_KEYWORD]: { description: FILTERS_IGNORED } } : filters,
      sort_by,
      order_by: { ...rest.order_by, [DOCS_KEYWORD]: { pattern: undefined, enum: ['ASC', 'DESC'] } },
      sort_dir: rest.sort_dir,
      skip: { ...skip, [DOCS_KEYWORD]: { maximum: options.maxSkip, examples: [0] } },
      limit: { ...limit, [DOCS_KEYWORD]: { maximum: options.maxGroups, examples: [Math.min(20, options.maxGroups)] } },
    },
  }
  const responses = {
    200: { type: 'array', items: groupItemSchema(fields), description: `The groups (at most ${options.maxGroups}), by the by fields unless sort_by says otherwise` },
    422: {
      ...validationErrorRef,
      description: `Invalid query parameters; more than ${options.maxGroups} groups without a limit (maxGroups); or a sum of integers past 2^53 (it would not be exact)`,
    },
  }
  return { responses, extra: { querystring } }
}

/**
 * How OpenAPI shows `by` and `metrics`: lists of the names they take, so that a typed client refuses a
 * field that cannot be grouped or measured (openapi-typescript types them as arrays of those names).
 * Where open objects leave names unlisted, lists of strings.
 */
function listDocs(fields: GroupFields, names: readonly string[], maxItems: number): Record<string, unknown> {
  return { type: 'array', minLength: undefined, items: fields.complete ? { type: 'string', enum: names } : { type: 'string' }, minItems: 1, maxItems }
}

/** Every metric of the groupable fields: `count`, then `sum:` and `avg:` of a number field, `min:` and `max:` of any. */
function metricNames(fields: GroupFields): string[] {
  const names = ['count']
  for (const [path, field] of fields.listed) names.push(...(field.numeric ? [`sum:${path}`, `avg:${path}`] : []), `min:${path}`, `max:${path}`)
  return names
}

/** One group: the `by` fields (null for a missing value) and the metrics, with their types; each present as the request asks. */
function groupItemSchema(fields: GroupFields): object {
  const properties: Record<string, object> = {}
  const add = (name: string, schema: object) => {
    // A model field named like a metric (`count`) is either, as the request says.
    properties[name] = Object.hasOwn(properties, name) ? { anyOf: [properties[name], schema] } : schema
  }
  for (const [path, field] of fields.listed) add(path, orNull(field.schema))
  add('count', { type: 'integer', minimum: 1, description: 'Documents in the group (metrics=count)' })
  for (const [path, field] of fields.listed) {
    if (field.numeric) {
      add(`sum_${path}`, { type: field.integer ? 'integer' : 'number', description: `Sum of ${path} (metrics=sum:${path}); 0 when none is a number` })
      add(`avg_${path}`, { ...orNull({ type: 'number' }), description: `Average of ${path} (metrics=avg:${path}); null when none is a number` })
    }
    add(`min_${path}`, { ...orNull(field.schema), description: `Smallest ${path} (metrics=min:${path}); null when none has one` })
    add(`max_${path}`, { ...orNull(field.schema), description: `Largest ${path} (metrics=max:${path}); null when none has one` })
  }
  return { type: 'object', properties, additionalProperties: !fields.complete }
}

/** `schema` or null, without nesting a second null. */
function orNull(schema: Record<string, unknown>): Record<string, unknown> {
  const variants = schema['anyOf']
  if (Array.isArray(variants)) {
    const hasNull = variants.some((variant) => (variant as { type?: unknown }).type === 'null')
    return hasNull ? schema : { ...schema, anyOf: [...variants, { type: 'null' }] }
  }
  if (schema['type'] === 'null') return schema
  return { anyOf: [schema, { type: 'null' }] }
}
