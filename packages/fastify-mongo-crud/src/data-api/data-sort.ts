import { HTTPException } from '../errors.js'
import { isRecord } from '../is-record.js'
import { checkClientPath, checkReference, type ReferenceGuard } from '../query/check-client-path.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { invalidParameter } from './data-api-error.js'

/**
 * A request's `sort` (`{ "age": -1, "name": 1 }`, keys in order): each a path clients may sort on (the
 * router's `sortable`, by default the output model's fields), as `sort_by` is checked; each direction 1
 * or -1. A hidden field is refused as an unknown one is.
 */
export function dataSort(raw: unknown, sortable: ShapeNode, guard: ReferenceGuard | undefined): Record<string, 1 | -1> | undefined {
  if (raw === undefined) return undefined
  if (!isRecord(raw)) throw invalidParameter("'sort' must be an object of fields and directions (1 or -1)")
  const sort: Record<string, 1 | -1> = {}
  for (const [path, direction] of Object.entries(raw)) {
    const segments = rephrased(() => checkClientPath('sort_by', path))
    if (nodeAt(sortable, segments) === undefined) throw invalidParameter(`sort: field "${path}" is not sortable`)
    rephrased(() => checkReference('sort_by', path, segments[0]!, guard))
    if (direction !== 1 && direction !== -1) throw invalidParameter(`sort: the direction of "${path}" must be 1 or -1`)
    sort[path] = direction
  }
  return Object.keys(sort).length === 0 ? undefined : sort
}

/** The grammar's refusal, under the Data API's key (`sort:` where the routes say `sort_by:`). */
function rephrased<T>(check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof HTTPException) throw invalidParameter(String(error.detail).replace(/^sort_by: /, 'sort: '))
    throw error
  }
}
