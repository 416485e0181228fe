import { HTTPException } from '../errors.js'
import { isRecord } from '../is-record.js'
import type { Filter } from '../query/filter.js'
import { type FilterContext, parseFilterObject } from '../query/parse-filter.js'
import { invalidParameter } from './data-api-error.js'

/**
 * A request's `filter` through the router's closed grammar (query/parse-filter.ts): only its operators,
 * only the fields clients may filter on, values of the fields' types, bounded. Anything else is 400
 * naming it (`filter: operator $where is not allowed`), the grammar's own words with the Data API's key.
 * Absent or `{}`: every document (of those the caller may read).
 */
export function clientFilter(raw: unknown, context: FilterContext, key = 'filter'): Filter | undefined {
  if (raw === undefined) return undefined
  if (!isRecord(raw)) throw invalidParameter(`'${key}' must be an object`)
  try {
    return parseFilterObject(raw, context)
  } catch (error) {
    if (error instanceof HTTPException) throw invalidParameter(String(error.detail).replace(/^filters: /, `${key}: `))
    throw error
  }
}
