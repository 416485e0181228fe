import { createHash } from 'node:crypto'
import { Binary } from 'mongodb'
import type { Document } from '../document.js'
import { badValueError, noMatchingDocumentError } from '../errors.js'
import type { ChangeEntry } from './change-entry.js'
import { clusterTimeOf } from './cluster-time.js'
import { describeUpdate } from './update-description.js'

/** What a change event holds besides the change itself, as the driver's `watch()` options name it. */
export interface ImageOptions {
  /** `default`: an update's event has no `fullDocument`; the others give the document after the change. */
  fullDocument?: 'default' | 'updateLookup' | 'whenAvailable' | 'required' | undefined
  /** `off` (default): no `fullDocumentBeforeChange`; the others give the document before the change. */
  fullDocumentBeforeChange?: 'off' | 'whenAvailable' | 'required' | undefined
  /** MongoDB 6's expanded events: definition changes (create, createIndexes, dropIndexes, modify), `collectionUUID`, `disambiguatedPaths`. */
  showExpandedEvents?: boolean | undefined
}

/** The events only a stream with `showExpandedEvents` reports. */
const EXPANDED = new Set(['create', 'createIndexes', 'dropIndexes', 'modify'])

/**
 * A resume token: the change's number in the log, as 16 hex digits (so tokens sort as they were
 * issued); the `invalidate` event that follows a change is that number and `01`.
 */
export function tokenOf(seq: number, invalidate = false): { _data: string } {
  return { _data: `${seq.toString(16).padStart(16, '0')}${invalidate ? '01' : ''}` }
}

/** The change a resume token stands for, and whether it is the invalidate after it; a token this engine did not issue is refused. */
export function readToken(token: unknown): { seq: number, invalidate: boolean } {
  const data = (token as { _data?: unknown } | null)?._data
  if (typeof data !== 'string' || !/^[0-9a-f]{16}(01)?$/.test(data)) {
    throw badValueError(`Invalid resume token: expected { _data: <16 hex digits> } as this engine issues, got ${JSON.stringify(token)}`)
  }
  return { seq: Number.parseInt(data.slice(0, 16), 16), invalidate: data.length > 16 }
}

/** Where and when a logged change happened, as its event tells it. */
export interface ChangeContext {
  seq: number
  /** When it was written, ms since the epoch (`wallTime`). */
  at: number
  ns: { db: string, coll: string }
  /** Whether the collection keeps the documents before and after its changes (`collMod`'s changeStreamPreAndPostImages). */
  keepsImages: boolean
}

/**
 * The event of one logged change, shaped as a server's change stream shapes it: `_id` (the resume
 * token), `operationType`, `clusterTime`, `wallTime`, `ns`, and per operation `documentKey`,
 * `fullDocument`, `fullDocumentBeforeChange`, `updateDescription`, `to`, `operationDescription`.
 * Undefined for an expanded event the stream did not ask for. The engine logs both images of a
 * change, so a post-image is the document as that change left it (exact, where a server's
 * `updateLookup` reads whatever is current when the event is read).
 */
export function changeDocument(entry: ChangeEntry, context: ChangeContext, options: ImageOptions): Document | undefined {
  if (EXPANDED.has(entry.o) && options.showExpandedEvents !== true) return undefined
  const { seq, at, ns } = context
  const event: Document = { _id: tokenOf(seq), operationType: entry.o, clusterTime: clusterTimeOf(seq), wallTime: new Date(at) }
  if (entry.o === 'dropDatabase') return { ...event, ns: { db: entry.c } }
  if (options.showExpandedEvents === true) event['collectionUUID'] = collectionUuidOf(ns)
  event['ns'] = { db: ns.db, coll: ns.coll }
  if (entry.o === 'insert' || entry.o === 'update' || entry.o === 'replace' || entry.o === 'delete') return documentEvent(event, entry, context, options)
  if (entry.o === 'rename') {
    const cut = entry.t!.indexOf('.')
    const to = { db: entry.t!.slice(0, cut), coll: entry.t!.slice(cut + 1) }
    event['to'] = to
    if (options.showExpandedEvents === true) event['operationDescription'] = { to, ...entry.d }
  } else if (entry.d !== undefined) {
    event['operationDescription'] = entry.d
  }
  return event
}

/** The event that ends a stream after the change `seq` dropped or renamed its collection, or dropped its database. */
export function invalidateDocument(seq: number, at: number): Document {
  return { _id: tokenOf(seq, true), operationType: 'invalidate', clusterTime: clusterTimeOf(seq), wallTime: new Date(at) }
}

function documentEvent(event: Document, entry: ChangeEntry, context: ChangeContext, options: ImageOptions): Document {
  const subject = entry.a ?? entry.b
  event['documentKey'] = { _id: subject?.['_id'] }
  const post = options.fullDocument ?? 'default'
  if (entry.o === 'insert' || entry.o === 'replace') event['fullDocument'] = entry.a
  else if (entry.o === 'update' && post !== 'default') event['fullDocument'] = post === 'updateLookup' || context.keepsImages ? entry.a : missingImage(post, 'post', event)
  const pre = options.fullDocumentBeforeChange ?? 'off'
  if (entry.o !== 'insert' && pre !== 'off') event['fullDocumentBeforeChange'] = context.keepsImages ? entry.b : missingImage(pre, 'pre', event)
  if (entry.o === 'update' && entry.a && entry.b) event['updateDescription'] = describeUpdate(entry.b, entry.a, options.showExpandedEvents === true)
  return event
}

/** An image the collection does not keep: null when asked `whenAvailable`, an error when `required` (as MongoDB's, NoMatchingDocument). */
function missingImage(mode: string, which: 'pre' | 'post', event: Document): null {
  if (mode !== 'required') return null
  throw noMatchingDocumentError(`Change stream was configured to require a ${which}-image for all update, delete and replace events, but the ${which}-image was not found for event: ${(event['_id'] as { _data: string })._data} (the collection's changeStreamPreAndPostImages is off)`)
}

/**
 * A collection's `collectionUUID`: the engine keeps no UUID per collection, so this one is derived
 * from its namespace (a SHA-256, as a version 8 UUID): stable for a name, the same again after the
 * collection is dropped and created anew.
 */
export function collectionUuidOf(ns: { db: string, coll: string }): Binary {
  const bytes = createHash('sha256').update(`${ns.db}.${ns.coll}`).digest().subarray(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x80
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  return new Binary(bytes, Binary.SUBTYPE_UUID)
}
