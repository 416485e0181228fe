import { ObjectId } from 'mongodb'
import { copyThroughBson } from '../bson/bson-codec.js'
import { toValueKey } from '../bson/value-key.js'
import { checkId } from '../collection/check-id.js'
import { type Document, isNonArrayObject } from '../document.js'
import { badValueError, duplicateKeyError, locationError } from '../errors.js'
import { ID_INDEX } from '../indexes/index-catalog.js'
import { indexKeysOf } from '../indexes/index-keys.js'
import { type OutputResolver, parseTargetName } from './output-target.js'

/**
 * `$out`: replaces every document of the target collection with the aggregation's results.
 *
 * It runs as one task of the target's write queue, so no other writer of that collection sees a
 * half-replaced collection. The results are checked first, against `_id` and the target's unique
 * indexes (which stay): a duplicate fails the whole `$out` and leaves the old contents in place.
 * Then the old documents are removed and the new ones inserted through the collection's write
 * primitives, each awaited durable as any write. A crash between the two leaves the target partly
 * written (storage has no multi-document transaction).
 */
export async function writeOut(spec: unknown, results: Document[], resolveTarget: OutputResolver): Promise<void> {
  if (typeof spec !== 'string' && !isNonArrayObject(spec)) {
    throw locationError(16990, `$out only supports a string or object argument, not ${Array.isArray(spec) ? 'array' : spec === null ? 'null' : typeof spec}`)
  }
  if (typeof spec === 'object' && (spec as Document)['timeseries'] !== undefined) throw badValueError('$out to a time-series collection is not supported by the embedded engine')
  const name = parseTargetName(spec, '$out', ['timeseries'])
  const target = resolveTarget(name.db, name.coll)
  const docs = results.map(toStored)
  const core = target.core
  await core.write(async () => {
    const ids = new Set<string>()
    // Each unique index's keys among the results, with the result that holds each (a document may
    // repeat a value in an array: that is not a conflict with itself).
    const indexes = core.indexes.list().filter((index) => index.unique).map((index) => ({
      name: index.name,
      fields: Object.entries(index.key) as [string, 1 | -1][],
      holders: new Map<string, string>(),
    }))
    for (const doc of docs) {
      const key = toValueKey(doc['_id'])
      if (ids.has(key)) throw duplicateKeyError(core.ns, ID_INDEX, { _id: doc['_id'] })
      ids.add(key)
      for (const index of indexes) {
        for (const indexKey of indexKeysOf(doc, index.fields).keys) {
          const holder = index.holders.get(indexKey.canonical)
          if (holder !== undefined && holder !== key) throw duplicateKeyError(core.ns, index.name, indexKey.keyValue)
          index.holders.set(indexKey.canonical, key)
        }
      }
    }
    await core.remove([...core.all()])
    // Checked above: no insert can conflict with another, so they commit together.
    await Promise.all(docs.map((doc) => core.insert(doc)))
  })
  if (docs.length === 0) await target.create()
}

/** A result as it is stored: a copy, with `_id` first, generated when the result has none. */
export function toStored(result: Document): Document {
  const { _id, ...fields } = copyThroughBson(result)
  const id = _id === undefined ? new ObjectId() : _id
  checkId(id)
  return { _id: id, ...fields }
}
