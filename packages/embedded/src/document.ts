import type { CollationOptions } from 'mongodb'

/**
 * The document and option shapes the engine speaks: the driver's, kept here so the engine depends on
 * no router code. That `EmbeddedDb` fits the router's `DriverDb` is proved by the root type tests.
 */
export type Document = Record<string, unknown>

/** A collation document, as the driver's (`{ locale: 'en', strength: 2 }`); see collation.ts. */
export type { CollationOptions }

export interface FindOptions {
  sort?: Record<string, 1 | -1>
  skip?: number
  limit?: number
  projection?: Document
  maxTimeMS?: number
  /** Variables for `$$name` in the filter's `$expr`: name → expression, evaluated once. */
  let?: Document
  /** Compare strings in this collation's order, for the filter and the sort. */
  collation?: CollationOptions | undefined
  /** As the driver's: false answers every number as its BSON type's class (Int32, Long, Double). */
  promoteValues?: boolean | undefined
  /** As the driver's: false answers every int64 as a Long (by default, one within 2^53 is a number). */
  promoteLongs?: boolean | undefined
}

/**
 * A plain object: a non-null object whose prototype is `Object.prototype`, as documents decoded
 * from BSON and JSON-like client values are. Arrays, dates, regexes, BSON values (ObjectId,
 * Decimal128, ...), class instances and null-prototype objects are not: the engine walks only
 * plain objects as documents, never another kind of object's internals.
 */
export function isPlainObject(value: unknown): value is Document {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
}

/**
 * Any non-null object but an array: a plain object, but also a Date, a RegExp or a BSON value.
 * What a client argument must be where MongoDB asks for "an object" and checks nothing more.
 */
export function isNonArrayObject(value: unknown): value is Document {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
