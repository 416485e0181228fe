import type { CollectionCore } from '../collection/collection-core.js'
import { isSystemCollection } from '../collection/collection-name.js'
import type { Document } from '../document.js'
import { invalidNamespaceError, locationError, typeMismatchError } from '../errors.js'

/** The collection an aggregation's `$out` or `$merge` writes into. */
export interface OutputTarget {
  /** The target's write primitives: every write goes through its queue, as any other write. */
  core: CollectionCore
  /** Creates the target when it does not exist yet (an empty `$out` still leaves a collection). */
  create(): Promise<void>
}

/** Finds the target collection: `db` undefined is the aggregation's own database. */
export type OutputResolver = (db: string | undefined, collection: string) => OutputTarget

interface TargetName {
  db: string | undefined
  coll: string
}

/**
 * `"coll"` or `{ db, coll }`, the target of `$out` and of `$merge`'s `into`, checked as the server
 * checks it (IDL codes: 40414 missing field, 40415 unknown field, 14 wrong type).
 */
export function parseTargetName(value: unknown, field: string, extraFields: readonly string[] = []): TargetName {
  if (typeof value === 'string') return { db: undefined, coll: checkedName(value) }
  const spec = value as Document
  for (const key of Object.keys(spec)) {
    if (key !== 'db' && key !== 'coll' && !extraFields.includes(key)) throw locationError(40415, `BSON field '${field}.${key}' is an unknown field.`)
  }
  for (const key of ['db', 'coll']) {
    if (spec[key] === undefined) throw locationError(40414, `BSON field '${field}.${key}' is missing but a required field`)
    if (typeof spec[key] !== 'string') throw typeMismatchError(`BSON field '${field}.${key}' is the wrong type '${typeof spec[key]}', expected type 'string'`)
  }
  return { db: spec['db'] as string, coll: checkedName(spec['coll'] as string) }
}

/** As MongoDB, a name `collection()` would refuse, or one of the engine's `system.*` collections (collection-name.ts). */
function checkedName(name: string): string {
  if (name === '' || name.includes('$') || name.includes('\0') || isSystemCollection(name)) throw invalidNamespaceError(`Invalid output collection name: ${JSON.stringify(name)}`)
  return name
}
