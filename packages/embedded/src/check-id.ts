import { badValueError, invalidIdError } from './errors.js'

/** The server's checks on an `_id` value before a document is stored. */
export function checkId(id: unknown): void {
  if (Array.isArray(id)) throw invalidIdError(`The '_id' value cannot be of type array`)
  if (id instanceof RegExp) throw badValueError(`can't use a regex for _id`)
}
