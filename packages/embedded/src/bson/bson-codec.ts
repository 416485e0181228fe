import { BSON } from 'mongodb'
import type { Document } from '../document.js'
import { documentTooLargeError } from '../errors.js'
import { plainCopy } from './plain-copy.js'
import { DESERIALIZE_AS, heldFromWrapped, type ValueForm } from './value-form.js'
import { bsonSizeAtLeast } from './value-size.js'
import { holdsWholeDouble } from './whole-doubles.js'

/** The server's limit on one document's BSON size. */
export const MAX_BSON_SIZE = 16 * 1024 * 1024

/** Like the driver's default: `undefined` is sent (and so stored) as `null`. */
const SERIALIZE = { ignoreUndefined: false } as const

let decodedCount = 0
let encodedCount = 0

/**
 * `doc`'s BSON size when it is at most `max`; past it, a lower bound above `max`. A document an
 * expression built may hold one value many times (a `$let` variable used twice at each of 40
 * levels): small in memory, it is 2^40 values in BSON, which the BSON library would walk for
 * hours. A bounded walk (value-size.ts) tells such a document apart first.
 */
export function bsonSizeWithin(doc: Document, max: number): number {
  const atLeast = bsonSizeAtLeast(doc, max)
  return atLeast > max ? atLeast : BSON.calculateObjectSize(doc, SERIALIZE)
}

/**
 * Serializes a document for storage, refusing it (code 10334) when it exceeds 16 MiB, before any
 * byte is stored.
 *
 * The size is checked on what BSON wrote rather than measured first (a walk as long as the
 * serialization: a quarter of what a write spends encoding). bson serializes into a shared 17 MiB
 * buffer, and a document past it comes out cut or fails (writes past a typed array's end are
 * dropped, or throw): the length it answers still counts every byte, so whatever is past 16 MiB is
 * caught there, and a failure is measured (the exact size for the error, or the failure itself
 * when the size was not the cause). The bounded walk first keeps a document BSON would take hours
 * to walk (bsonSizeWithin) from reaching it.
 */
export function encodeDocument(doc: Document): Uint8Array {
  const atLeast = bsonSizeAtLeast(doc, MAX_BSON_SIZE)
  if (atLeast > MAX_BSON_SIZE) throw documentTooLargeError(atLeast, MAX_BSON_SIZE)
  let bytes: Uint8Array
  try {
    bytes = BSON.serialize(doc, SERIALIZE)
  } catch (error) {
    const size = BSON.calculateObjectSize(doc, SERIALIZE)
    throw size > MAX_BSON_SIZE ? documentTooLargeError(size, MAX_BSON_SIZE) : error
  }
  if (bytes.length > MAX_BSON_SIZE) throw documentTooLargeError(BSON.calculateObjectSize(doc, SERIALIZE), MAX_BSON_SIZE)
  encodedCount++
  return bytes
}

/** Every Long a Long; Int32 and Double as numbers. */
const LONGS_KEPT = { promoteLongs: false } as const
/** Every number as its type's class. */
const WRAPPED = { promoteValues: false } as const

/**
 * A stored document as the engine holds it, every numeric type apart (numeric-type.ts). Most
 * documents have no double a JS number would give back as an int32, and decode in one pass keeping
 * only Longs; one that has (10.0) decodes with every number wrapped, then unwrapped but those.
 * Every call returns a fresh object graph: callers may mutate it freely.
 */
export function decodeDocument(bytes: Uint8Array): Document {
  decodedCount++
  return decodeHeld(bytes)
}

/** decodeDocument without counting: for parts of a document (bson-field-reader.ts). */
export function decodeHeld(bytes: Uint8Array): Document {
  return holdsWholeDouble(bytes) ? heldFromWrapped(BSON.deserialize(bytes, WRAPPED) as Document) : (BSON.deserialize(bytes, LONGS_KEPT) as Document)
}

/** A stored document in the form a read asks for (value-form.ts): straight from its bytes when BSON can give that form. */
export function decodeInForm(bytes: Uint8Array, form: ValueForm): Document {
  if (form === 'held') return decodeDocument(bytes)
  decodedCount++
  return BSON.deserialize(bytes, DESERIALIZE_AS[form]) as Document
}

/**
 * A document a client sent (over the wire), as the engine holds it. Unlike stored bytes, these are
 * not known to be well-formed: BSON's decoder checks them before anything walks them.
 */
export function decodeReceived(bytes: Uint8Array): Document {
  return heldFromWrapped(BSON.deserialize(bytes, WRAPPED) as Document)
}

/**
 * Copies caller input through BSON, exactly as sending it to a server would: the engine then
 * never aliases caller objects, and values BSON cannot hold are normalized the same way. A small
 * document of plain values is copied directly, to the same result (plain-copy.ts).
 */
export function copyThroughBson(doc: Document): Document {
  return plainCopy(doc) ?? decodeDocument(encodeDocument(doc))
}

/** Documents decoded since the process started. Lets tests prove that scans are lazy. */
export function documentsDecoded(): number {
  return decodedCount
}

/** Documents encoded since the process started. Lets tests prove that a write encodes its document once. */
export function documentsEncoded(): number {
  return encodedCount
}
