import { Timestamp } from 'mongodb'
import { toValueKey } from '../bson/value-key.js'
import type { Document } from '../document.js'
import { badValueError } from '../errors.js'
import type { ChangeEntry } from './change-entry.js'

/** What a change event holds besides the change itself, as the driver's `watch()` options name it. */
export interface ImageOptions {
  /** `default`: an update's event has no `fullDocument`; the others give the document after the change. */
  fullDocument?: 'default' | 'updateLookup' | 'whenAvailable' | 'required' | undefined
  /** `off` (default): no `fullDocumentBeforeChange`; the others give the document before the change. */
  fullDocumentBeforeChange?: 'off' | 'whenAvailable' | 'required' | undefined
}

/** A resume token: the change's number in the log, as 16 hex digits (so tokens sort as they were issued). */
export function tokenOf(seq: number): { _data: string } {
  return { _data: seq.toString(16).padStart(16, '0') }
}

/** The number a resume token stands for; a token this engine did not issue is refused. */
export function seqOfToken(token: unknown): number {
  const data = (token as { _data?: unknown } | null)?._data
  if (typeof data !== 'string' || !/^[0-9a-f]{16}$/.test(data)) {
    throw badValueError(`Invalid resume token: expected { _data: <16 hex digits> } as this engine issues, got ${JSON.stringify(token)}`)
  }
  return Number.parseInt(data, 16)
}

/**
 * The event of one logged change, shaped as a server's change stream shapes it: `_id` (the
 * resume token), `operationType`, `clusterTime`, `ns`, `documentKey`, and per operation
 * `fullDocument`, `fullDocumentBeforeChange` and `updateDescription`. The engine logs both images
 * of a change, so a post-image is the document as that change left it (exact, where a server's
 * `updateLookup` reads whatever is current when the event is read).
 */
export function changeDocument(seq: number, entry: ChangeEntry, ns: { db: string, coll: string }, options: ImageOptions): Document {
  const subject = entry.a ?? entry.b
  const event: Document = {
    _id: tokenOf(seq),
    operationType: entry.o,
    clusterTime: new Timestamp({ t: 0, i: seq }),
    ns: { db: ns.db, coll: ns.coll },
    documentKey: { _id: subject?.['_id'] },
  }
  if (entry.a && (entry.o !== 'update' || (options.fullDocument ?? 'default') !== 'default')) event['fullDocument'] = entry.a
  if (entry.b && entry.o !== 'insert' && (options.fullDocumentBeforeChange ?? 'off') !== 'off') event['fullDocumentBeforeChange'] = entry.b
  if (entry.o === 'update' && entry.a && entry.b) event['updateDescription'] = describeUpdate(entry.b, entry.a)
  return event
}

/** The top-level fields an update set or removed (a changed sub-document counts as set whole). */
function describeUpdate(before: Document, after: Document): Document {
  const updatedFields: Document = {}
  for (const [name, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, name) || toValueKey(before[name]) !== toValueKey(value)) updatedFields[name] = value
  }
  const removedFields = Object.keys(before).filter((name) => !Object.hasOwn(after, name))
  return { updatedFields, removedFields, truncatedArrays: [] }
}
