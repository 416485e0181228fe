import { invalidQuery } from '../errors.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import { checkClientPath, checkReference, type ReferenceGuard } from './check-client-path.js'
import type { GroupFields } from './group-fields.js'
import type { GroupMetric, GroupQuery, GroupSortKey, GroupsQueryString } from './group-query.js'
import { refuseGuessedParameters } from './guessed-parameters.js'
import type { PageLimits } from './parse-page.js'
import { parsePage } from './parse-page.js'
import { parseDirection } from './parse-sort.js'

/** Fields one grouping may combine, and metrics it may compute: each is one more key and accumulator per group. */
export const MAX_BY_FIELDS = 10
export const MAX_METRICS = 20

/** What a `_groups` route lets clients group by and measure, and how many groups one answer holds. */
export interface GroupSpec {
  readonly fields: GroupFields
  readonly maxGroups: number
  /** The list's `maxSkip` holds here too. */
  readonly page: Pick<PageLimits, 'maxSkip'>
  /** Top-level fields clients may not name (the list's filters guard: query/check-client-path.ts). */
  readonly guard?: ReferenceGuard | undefined
}

/** A `_groups` request parsed (its filter apart: it is the list's, under the list's rules). */
export interface ParsedGroups {
  readonly query: Omit<GroupQuery, 'filter'>
  /** The answer's keys: the `by` paths as sent, then the metric names (`count`, `sum_age`). */
  readonly names: { readonly by: readonly string[], readonly metrics: readonly string[] }
  /** Sent without `limit`: one group more than `maxGroups` is read, to tell that there are too many. */
  readonly unbounded: boolean
}

const OPERATIONS = new Set(['sum', 'avg', 'min', 'max'])

export function parseGroupQuery(raw: GroupsQueryString, spec: GroupSpec): ParsedGroups {
  refuseGuessedParameters(raw, spec.fields.visible)
  const by = parseBy(raw.by, spec.fields.visible, spec.guard)
  const metrics = parseMetrics(raw.metrics, spec.fields, spec.guard)
  const names = { by: by.map((path) => path.name), metrics: metrics.map((metric) => metric.name) }
  const clash = names.by.find((name) => names.metrics.includes(name))
  if (clash !== undefined) throw invalidQuery(`by: "${clash}" is also the name of a metric; group by it under no metric of that name`)
  const direction = parseDirection(raw)
  const sort = parseGroupSort(raw.sort_by, names, direction)
  const { skip } = parsePage(raw.skip === undefined ? {} : { skip: raw.skip }, spec.page)
  if (raw.limit !== undefined && raw.limit > spec.maxGroups) throw invalidQuery(`limit must be at most ${spec.maxGroups}`)
  const query = { by: by.map((path) => path.path), metrics: metrics.map((metric) => metric.metric), sort, skip, limit: raw.limit ?? spec.maxGroups + 1 }
  return { query, names, unbounded: raw.limit === undefined }
}

/** The items of a list parameter, comma-separated or repeated (`by=city,role`, `by=city&by=role`). */
const items = (raw: string | readonly string[]) => (typeof raw === 'string' ? raw : raw.join(',')).split(',').map((item) => item.trim()).filter((item) => item !== '')

/** `by=city,address.zip`: distinct single-valued fields clients may filter on. */
function parseBy(raw: string | readonly string[] | undefined, visible: ShapeNode, guard: ReferenceGuard | undefined): Array<{ name: string, path: string }> {
  const names = items(raw ?? '')
  if (names.length === 0) throw invalidQuery('by: name at least one field to group by')
  if (names.length > MAX_BY_FIELDS) throw invalidQuery(`by: more than the limit of ${MAX_BY_FIELDS} fields`)
  const twice = names.find((name, index) => names.indexOf(name) !== index)
  if (twice !== undefined) throw invalidQuery(`by: "${twice}" is named twice`)
  return names.map((name) => ({ name, path: checkGroupable('by', name, visible, guard).path }))
}

interface ParsedMetric {
  readonly name: string
  readonly metric: GroupMetric
}

/** `metrics=count,sum:age`: `count`, or an operation on a field; `count` alone by default. */
function parseMetrics(raw: string | readonly string[] | undefined, fields: GroupFields, guard: ReferenceGuard | undefined): ParsedMetric[] {
  const asked = items(raw ?? 'count')
  if (asked.length === 0) throw invalidQuery('metrics: name at least one metric, such as count or sum:age')
  if (asked.length > MAX_METRICS) throw invalidQuery(`metrics: more than the limit of ${MAX_METRICS} metrics`)
  const metrics = asked.map((item) => parseMetric(item, fields, guard))
  const names = metrics.map((metric) => metric.name)
  const twice = names.find((name, index) => names.indexOf(name) !== index)
  if (twice !== undefined) throw invalidQuery(`metrics: "${twice}" is asked twice`)
  return metrics
}

function parseMetric(item: string, fields: GroupFields, guard: ReferenceGuard | undefined): ParsedMetric {
  if (item === 'count') return { name: 'count', metric: { op: 'count' } }
  const colon = item.indexOf(':')
  const op = colon === -1 ? item : item.slice(0, colon)
  if (colon === -1 || !OPERATIONS.has(op)) throw invalidQuery(`metrics: "${item}" is not a metric: use count, sum:<field>, avg:<field>, min:<field> or max:<field>`)
  const name = item.slice(colon + 1).trim()
  const { path, node } = checkGroupable('metrics', name, fields.visible, guard)
  const numeric = node.kind === 'any' || (node.kind === 'scalar' && node.types.has('number'))
  if ((op === 'sum' || op === 'avg') && !numeric) throw invalidQuery(`metrics: ${op} needs a number field, and "${name}" is not one`)
  // An integer sum is exact while the magnitudes of its values add up below 2^53; a field of no declared type may hold integers.
  const exact = op === 'sum' && (fields.listed.get(name)?.integer === true || node.kind === 'any')
  return { name: `${op}_${name}`, metric: { op: op as 'sum' | 'avg' | 'min' | 'max', path, ...(exact ? { exact } : {}) } }
}

/**
 * A path a grouping may name: one clients may filter on, holding one value. Hidden and unknown fields
 * get the same answer, as in `filters`, so that a client cannot probe what exists.
 */
function checkGroupable(parameter: 'by' | 'metrics', name: string, visible: ShapeNode, guard: ReferenceGuard | undefined): { path: string, node: ShapeNode } {
  const segments = checkClientPath(parameter, name)
  const identifier = segments[0] === 'id' && visible.kind === 'object' && visible.isDocument
  const found = singleValueAt(visible, identifier ? ['_id', ...segments.slice(1)] : segments)
  if (found === 'missing') throw invalidQuery(`${parameter}: field "${name}" is not groupable`)
  checkReference(parameter, name, identifier ? '_id' : segments[0]!, guard)
  if (found === 'object') throw invalidQuery(`${parameter}: field "${name}" holds an object: name one of its fields`)
  if (found === 'array') throw invalidQuery(`${parameter}: field "${name}" holds a list, not one value`)
  return { path: segments.join('.'), node: found }
}

/** The node at a path that reaches one value; or why it does not (an array is never stepped through). */
function singleValueAt(root: ShapeNode, segments: readonly string[]): ShapeNode | 'missing' | 'object' | 'array' {
  let node = root
  for (const segment of segments) {
    if (node.kind === 'any') return node
    if (node.kind === 'array') return 'array'
    if (node.kind !== 'object') return 'missing'
    const next = node.fields.get(segment)
    if (next === undefined) return node.open ? { kind: 'any' } : 'missing'
    node = next
  }
  if (node.kind === 'array') return 'array'
  return node.kind === 'object' ? 'object' : node
}

/** `sort_by` names a `by` field or a metric of this request. */
function parseGroupSort(sortBy: string | undefined, names: ParsedGroups['names'], direction: 1 | -1 | undefined): GroupQuery['sort'] {
  if (sortBy === undefined || sortBy === '') return direction === undefined ? undefined : { key: { by: 0 }, direction }
  const by = names.by.indexOf(sortBy)
  const metric = names.metrics.indexOf(sortBy)
  const key: GroupSortKey | undefined = by !== -1 ? { by } : metric !== -1 ? { metric } : undefined
  if (key === undefined) throw invalidQuery(`sort_by: "${sortBy}" is neither a by field nor a metric of this request (${[...names.by, ...names.metrics].join(', ')})`)
  return { key, direction: direction ?? 1 }
}
