import type { GroupMetric, GroupQuery, GroupRow } from '../query/group-query.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import { toWire } from './codec.js'
import type { Document } from './driver-db.js'
import { toMongoPath } from './to-mongo-filter.js'

/**
 * The stages that group the documents a pipeline has matched: `$group` -> `$sort` -> `$limit` ->
 * `$skip`. The same stages run on MongoDB and on the embedded engine (whose `$group` is mingo's).
 * Keys and accumulators get generated names (`k0`, `m0`): a client's path may hold dots, which a
 * `$group` output field may not.
 */
export function groupStages(query: GroupQuery, shape: ShapeNode): Document[] {
  const field = (path: string) => `$${toMongoPath(path, shape)}`
  // One field groups by its value, missing and null in one group. Several group by a document of them,
  // where `$ifNull` keeps that true (a bare `{ k0: '$city' }` drops a missing key, splitting it from null);
  // it costs: on the engine, an object key takes about as long to group by as reading the documents.
  const single = query.by.length === 1
  const id = single ? field(query.by[0]!) : Object.fromEntries(query.by.map((path, i) => [`k${i}`, { $ifNull: [field(path), null] }]))
  const group: Document = { _id: id }
  query.metrics.forEach((metric, i) => {
    group[`m${i}`] = accumulator(metric, field)
    // Non-numbers count as 0: `$abs` of a stored misfit (a string) would fail the whole aggregation.
    if (metric.op === 'sum' && metric.exact === true) group[`a${i}`] = { $sum: { $abs: { $cond: [{ $isNumber: field(metric.path) }, field(metric.path), 0] } } }
  })
  const keys = single ? ['_id'] : query.by.map((_, i) => `_id.k${i}`)
  const sort: Record<string, 1 | -1> = {}
  if (query.sort !== undefined) {
    const key = 'by' in query.sort.key ? keys[query.sort.key.by]! : `m${query.sort.key.metric}`
    sort[key] = query.sort.direction
  }
  // Then by the keys, ascending: one order for equal sort values, so pages never overlap.
  for (const key of keys) if (!(key in sort)) sort[key] = 1
  // `$limit` before `$skip` (the same groups): the sort then keeps only skip + limit groups (a top-k),
  // on the engine as on MongoDB, instead of sorting every group.
  const stages: Document[] = [{ $group: group }, { $sort: sort }, { $limit: Math.min(query.skip + query.limit, Number.MAX_SAFE_INTEGER) }]
  if (query.skip > 0) stages.push({ $skip: query.skip })
  return stages
}

function accumulator(metric: GroupMetric, field: (path: string) => string): Document {
  switch (metric.op) {
    case 'count':
      return { $sum: 1 }
    case 'sum':
      return { $sum: field(metric.path) }
    case 'avg':
      return { $avg: field(metric.path) }
    case 'min':
      return { $min: field(metric.path) }
    case 'max':
      return { $max: field(metric.path) }
  }
}

/** One output document of `groupStages` as a row, its values in wire form (ObjectIds as hex, as documents). */
export function groupRow(doc: Document, query: GroupQuery): GroupRow {
  const wire = toWire(doc)
  const id = wire['id'] ?? null
  return {
    keys: query.by.length === 1 ? [id] : query.by.map((_, i) => (id as Record<string, unknown> | null)?.[`k${i}`] ?? null),
    values: query.metrics.map((_, i) => wire[`m${i}`] ?? null),
    magnitudes: query.metrics.map((_, i) => wire[`a${i}`]),
    // A number of a BSON type (a Long, a Decimal128: stored by another client, or a sum of them) whose wire
    // form is not a number holds more than a JSON number can.
    inexact: query.metrics.map((_, i) => isBsonNumber(doc[`m${i}`]) && typeof wire[`m${i}`] !== 'number'),
  }
}

function isBsonNumber(value: unknown): boolean {
  const type = typeof value === 'object' && value !== null ? (value as { _bsontype?: unknown })._bsontype : undefined
  return type === 'Long' || type === 'Decimal128' || type === 'Int32' || type === 'Double'
}
