import { BSON, type Long } from 'mongodb'
import { decodeHeld } from '../bson/bson-codec.js'
import { StoredBytes } from '../bson/stored-bytes.js'
import type { Document } from '../document.js'

/** Like the driver's default: `undefined` is sent as `null`. */
const SERIALIZE = { ignoreUndefined: false } as const


/**
 * `{ cursor: { firstBatch | nextBatch: docs, id, ns }, ok: 1 }` with stored documents: a document read
 * by its key is never decoded nor encoded again on its way to the client (both were most of the wire
 * server's work for a point read).
 */
export function storedBatchReply(which: 'firstBatch' | 'nextBatch', docs: StoredBytes[], id: Long, ns: string): Document {
  return { cursor: { [which]: docs, id, ns }, ok: 1 }
}

/** A reply's BSON body; replies carrying stored documents are assembled around their bytes. */
export function encodeReplyBody(reply: Document): Uint8Array {
  return assembled(reply) ?? BSON.serialize(withDecodedBatch(reply), SERIALIZE)
}

interface BatchShape {
  which: string
  docs: StoredBytes[]
  id: Long
  ns: string
  /** The BSON elements of the fields added after `ok` (a replica set's `operationTime` and `$clusterTime`). */
  tail: Uint8Array
}

/**
 * The reply's cursor when it is what `storedBatchReply` makes, with at most fields added after `ok`
 * (a replica set's cluster time); undefined when anything else changed it (a fail point's error).
 */
function batchShape(reply: Document): BatchShape | undefined {
  const keys = Object.keys(reply)
  if (keys.length < 2 || keys[0] !== 'cursor' || keys[1] !== 'ok' || reply['ok'] !== 1) return undefined
  const cursor = reply['cursor'] as Document
  const [which, ...rest] = Object.keys(cursor)
  const docs = cursor[which!]
  if (rest.join() !== 'id,ns' || !Array.isArray(docs) || !docs.every((doc) => doc instanceof StoredBytes)) return undefined
  const added = Object.fromEntries(keys.slice(2).map((key) => [key, reply[key]]))
  const serialized = keys.length > 2 ? BSON.serialize(added, SERIALIZE) : undefined
  const tail = serialized === undefined ? new Uint8Array() : serialized.subarray(4, serialized.length - 1)
  return { which: which!, docs, id: cursor['id'] as Long, ns: cursor['ns'] as string, tail }
}

/** Writes the BSON of `{ cursor: { <which>: [<bytes>...], id: <int64>, ns: <string> }, ok: <double 1>, ...added }`. */
function assembled(reply: Document): Uint8Array | undefined {
  const shape = batchShape(reply)
  if (shape === undefined) return undefined
  const ns = Buffer.from(shape.ns, 'utf8')
  let arraySize = 4 + 1
  shape.docs.forEach((doc, i) => {
    arraySize += 1 + String(i).length + 1 + doc.bytes.length
  })
  const cursorSize = 4 + (1 + shape.which.length + 1 + arraySize) + (1 + 3 + 8) + (1 + 3 + 4 + ns.length + 1) + 1
  const size = 4 + (1 + 7 + cursorSize) + (1 + 3 + 8) + shape.tail.length + 1
  const out = Buffer.allocUnsafe(size)
  let at = out.writeInt32LE(size, 0)
  at = element(out, at, 0x03, 'cursor')
  at = out.writeInt32LE(cursorSize, at)
  at = element(out, at, 0x04, shape.which)
  at = out.writeInt32LE(arraySize, at)
  shape.docs.forEach((doc, i) => {
    at = element(out, at, 0x03, String(i))
    out.set(doc.bytes, at)
    at += doc.bytes.length
  })
  out[at++] = 0
  at = element(out, at, 0x12, 'id')
  at = out.writeInt32LE(shape.id.low, at)
  at = out.writeInt32LE(shape.id.high, at)
  at = element(out, at, 0x02, 'ns')
  at = out.writeInt32LE(ns.length + 1, at)
  out.set(ns, at)
  at += ns.length
  out[at++] = 0
  out[at++] = 0
  at = element(out, at, 0x01, 'ok')
  at = out.writeDoubleLE(1, at)
  out.set(shape.tail, at)
  at += shape.tail.length
  out[at++] = 0
  return out
}

/** A BSON element's type byte and name (ASCII here: field names and array indexes). */
function element(out: Buffer, at: number, type: number, name: string): number {
  out[at++] = type
  at += out.write(name, at, 'latin1')
  out[at++] = 0
  return at
}

/** The reply with its stored documents decoded, for a reply something was added to. */
function withDecodedBatch(reply: Document): Document {
  const cursor = reply['cursor']
  if (typeof cursor !== 'object' || cursor === null) return reply
  const decoded: Document = { ...(cursor as Document) }
  for (const which of ['firstBatch', 'nextBatch']) {
    const docs = decoded[which]
    if (Array.isArray(docs)) decoded[which] = docs.map((doc) => (doc instanceof StoredBytes ? decodeHeld(doc.bytes) : doc))
  }
  return { ...reply, cursor: decoded }
}
