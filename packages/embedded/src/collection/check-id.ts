import { isPlainObject } from '../document.js'
import { badValueError, dollarPrefixedFieldError, invalidIdError } from '../errors.js'

/** The server's checks on an `_id` value before a document is stored. */
export function checkId(id: unknown): void {
  if (Array.isArray(id)) throw invalidIdError(`The '_id' value cannot be of type array`)
  if (id instanceof RegExp) throw badValueError(`can't use a regex for _id`)
  const dollar = dollarKeyIn(id)
  if (dollar !== undefined) throw dollarPrefixedFieldError(`_id fields may not contain '$'-prefixed fields: ${dollar} is not valid for storage.`)
}

/** The first `$`-prefixed key in a plain object, at any depth (a stored `_id` could never be queried by it). */
function dollarKeyIn(value: unknown): string | undefined {
  if (!Array.isArray(value) && !isPlainObject(value)) return undefined
  for (const [key, inner] of Object.entries(value)) {
    if (!Array.isArray(value) && key.startsWith('$')) return key
    const found = dollarKeyIn(inner)
    if (found !== undefined) return found
  }
  return undefined
}
