import { BsonFieldReader } from '../bson/bson-field-reader.js'
import type { Document } from '../document.js'
import { filterFields } from '../query/filter-fields.js'
import type { SortSpec } from '../sort/sort-documents.js'

/**
 * What a find reads of each stored document before it knows whether it returns it: the fields its
 * filter reads (filter-fields.ts) and the first segment of each sort path, taken straight from
 * the BSON bytes. Undefined when the filter may read anything: each document is then decoded in full.
 */
export function fieldsToRead(filter: Document, sort: SortSpec | undefined): BsonFieldReader | undefined {
  const fields = filterFields(filter)
  if (fields === undefined) return undefined
  for (const path of Object.keys(sort ?? {})) fields.push(path.split('.')[0]!)
  return new BsonFieldReader(fields)
}
