import { type Document, isNonArrayObject } from '../document.js'

const LOGICAL = new Set(['$and', '$or', '$nor'])

/**
 * The top-level fields a filter reads, when matching a document holding only those fields gives
 * the same answer as matching the whole document; undefined when the filter may read anything.
 *
 * Field conditions (`{ a: ... }`, `{ 'a.b.0': ... }`) look only at the value under their path's
 * first segment, whatever operators they use, so the fields are those first segments, gathered
 * through `$and`, `$or` and `$nor`. Any other top-level operator (`$expr`, `$where`, `$jsonSchema`,
 * `$text`, `$comment`...) may read the whole document: the caller then decodes it in full.
 */
export function filterFields(filter: Document): string[] | undefined {
  const fields = new Set<string>()
  return collect(filter, fields) ? [...fields] : undefined
}

function collect(filter: Document, fields: Set<string>): boolean {
  for (const key of Object.keys(filter)) {
    if (LOGICAL.has(key)) {
      const parts = filter[key]
      if (!Array.isArray(parts)) return false
      for (const part of parts) {
        if (!isNonArrayObject(part) || !collect(part, fields)) return false
      }
    } else {
      const root = key.split('.')[0]!
      if (root === '' || root.startsWith('$')) return false
      fields.add(root)
    }
  }
  return true
}
