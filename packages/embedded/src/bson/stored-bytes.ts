import type { FindOptions } from '../document.js'

/**
 * A document as the engine stores it (BSON bytes), handed out undecoded: the wire server writes it
 * into a reply as it is, where decoding it and encoding it again was most of the work of a read.
 */
export class StoredBytes {
  constructor(readonly bytes: Uint8Array) {}
}

/**
 * The find option, for engine code only (it is not in `FindOptions`' public type), that asks for
 * `StoredBytes` instead of documents. A projection reshapes documents: with one, it is ignored.
 */
export const AS_STORED: unique symbol = Symbol('fastify-mongo-crud.asStored')

export type StoredFindOptions = FindOptions & { [AS_STORED]?: true }
