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
}
