import { type Document, isNonArrayObject } from '../document.js'
import { locationError, typeMismatchError } from '../errors.js'

/**
 * `$listLocalSessions`, the first stage of a database-level aggregation: the sessions this server
 * has seen. The engine in-process sees none; the wire server passes the sessions its clients used
 * (wire/session-registry.ts). It becomes a `$documents` stage over them.
 *
 * Without authentication every session belongs to the unnamed user: `{ allUsers: true }` and `{}`
 * list them all, a `users` list names users the engine has none of, so it lists nothing.
 */
export function withLocalSessions(pipeline: Document[], sessions: Document[]): Document[] {
  const [first, ...rest] = pipeline
  if (first === undefined || typeof first !== 'object' || first === null || !Object.hasOwn(first, '$listLocalSessions') || Object.keys(first).length !== 1) return pipeline
  const spec = first['$listLocalSessions']
  if (!isNonArrayObject(spec)) throw typeMismatchError("$listLocalSessions options must be an object")
  for (const key of Object.keys(spec)) {
    if (key !== 'allUsers' && key !== 'users') throw locationError(40415, `BSON field '$listLocalSessions.${key}' is an unknown field.`)
  }
  const { allUsers, users } = spec as Document
  if (allUsers !== undefined && typeof allUsers !== 'boolean') throw typeMismatchError("BSON field '$listLocalSessions.allUsers' is the wrong type, expected type 'bool'")
  if (users !== undefined && !Array.isArray(users)) throw typeMismatchError("BSON field '$listLocalSessions.users' is the wrong type, expected type 'array'")
  if (allUsers === true && users !== undefined) throw locationError(31106, 'The $listLocalSessions stage can not specify both allUsers and a users list')
  const listed = users === undefined ? sessions : []
  return [{ $documents: { $literal: listed } }, ...rest]
}
