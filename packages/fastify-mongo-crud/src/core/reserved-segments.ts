import { reservedId } from '../errors.js'

/**
 * Path segments under a router's prefix that are the router's own routes (`<prefix>/_batch`, and
 * `_events`, `_groups`): a document whose identifier were one of them could not be reached at
 * `<prefix>/<id>` by every verb. With an `identifierField` other than `_id` (whose values are
 * ObjectIds, never these), creates and replaces refuse them (docs/http-contract.md).
 */
export const RESERVED_SEGMENTS: ReadonlySet<string> = new Set(['_batch', '_events', '_groups'])

/** Refuses a reserved identifier value (422). */
export function refuseReservedId(field: string, value: unknown): void {
  if (typeof value === 'string' && RESERVED_SEGMENTS.has(value)) throw reservedId(field, value)
}
