import type { Filter } from '../query/filter.js'
import type { ListQuery } from '../query/list-query.js'
import type { ArrayItemsContext } from './array-items-context.js'
import type { Document } from './driver-db.js'
import { toMongoFilter, toMongoPath } from './to-mongo-filter.js'

/** The one parent's items, filtered, sorted and paged by the database. */
export function itemsPipeline(parent: Filter, query: ListQuery, { field, shapes, ids, parentFilter }: ArrayItemsContext): Document[] {
  const pipeline: Document[] = [
    { $match: parentFilter(parent) },
    { $limit: 1 },
    // A misfit (a scalar or a missing field where the array should be) lists as no items.
    { $project: { _id: 0, item: { $cond: [{ $isArray: `$${field}` }, `$${field}`, []] } } },
    { $unwind: '$item' },
    { $match: { item: { $type: 'object' } } },
    { $replaceRoot: { newRoot: '$item' } },
    { $match: toMongoFilter(query.filter, shapes.item, ids) },
  ]
  if (query.sort !== undefined) {
    const path = toMongoPath(query.sort.path, shapes.item)
    // `_id` as a tie-breaker, as on the main list: page cursors continue after (value, _id).
    pipeline.push({ $sort: path === '_id' ? { _id: query.sort.direction } : { [path]: query.sort.direction, _id: 1 } })
  }
  if (query.skip > 0) pipeline.push({ $skip: query.skip })
  if (query.limit !== undefined) pipeline.push({ $limit: query.limit })
  return pipeline
}
