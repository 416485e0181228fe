import type { ListQuery } from '../query/list-query.js'
import type { CollectionContext } from './collection-context.js'
import type { DriverFindOptions } from './driver-db.js'
import { toMongoPath } from './to-mongo-filter.js'

/** The driver's options for one page of a list: sort, skip, limit and the `fields=` projection. */
export function findOptions(query: ListQuery, { shape, timeLimit, projection }: CollectionContext): DriverFindOptions {
  const found: DriverFindOptions = { ...timeLimit }
  if (query.sort !== undefined) {
    const path = toMongoPath(query.sort.path, shape)
    // `_id` as a tie-breaker makes pages stable when the sort key repeats.
    found.sort = path === '_id' ? { _id: query.sort.direction } : { [path]: query.sort.direction, _id: 1 }
  }
  if (query.skip > 0) found.skip = query.skip
  if (query.limit !== undefined) found.limit = query.limit
  if (query.fields !== undefined) found.projection = projection(query.fields)
  return found
}
