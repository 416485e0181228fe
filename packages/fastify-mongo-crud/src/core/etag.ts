import { createHmac, randomBytes } from 'node:crypto'
import { databaseName } from '../store/driver-db.js'
import type { WireDoc } from '../store/store.js'

/**
 * The ETag of a stored document (or of one embedded item): an HMAC-SHA256 of its canonical JSON form,
 * every stored field included, whoever wrote it (this router, another app on the same collection).
 *
 * Why a keyed hash of the content, and not a version field the router maintains:
 * - a version field changes only when this router writes; another app's write would keep the tag, and
 *   a client's `If-Match` would then overwrite a change it never saw. The content changes with every write.
 * - the content includes fields the client does not see (hidden by the output model, or outside it).
 *   A plain hash would be an oracle for them: knowing every visible field, a client could hash each
 *   candidate value of a low-entropy hidden field (`role: "admin"`) and compare. Keyed, it cannot.
 *   The key is the router's `etagKey`, or a random one per process (tags then change on restart and
 *   differ between instances, which costs a 200 instead of a 304, or a 412 the client retries: never
 *   a lost update).
 * Canonical: keys sorted at every level, so a stored document whose fields come back in another order
 * (MongoDB moves `_id` first on insert) keeps its tag. The JSON form (ids as hex, dates as ISO text) is
 * what the routes hold; a change of type alone that keeps it (an int rewritten as the same double) keeps
 * the tag, and a conditional write still sees it (its guard compares the stored document itself).
 */
export function etagOf(doc: WireDoc, key: string | undefined): string {
  const digest = createHmac('sha256', key ?? PROCESS_KEY).update(canonicalJson(doc)).digest('base64url')
  // 128 bits: a validator, not a signature; collisions stay out of reach and the header stays short.
  return `"${digest.slice(0, 22)}"`
}

/** Used when the router has no `etagKey`. */
const PROCESS_KEY = randomBytes(32)

/**
 * The key of the tags of one place: the router's key bound to where the tagged document lives (its
 * database and collection; for an embedded item, also the array and the parent). A client can write a
 * copy of a document it can read elsewhere (another collection under the same key, an item with the
 * same id under its own parent) and vary a hidden field of the copy: were tags the same for the same
 * content, comparing the copy's tag with the original's would confirm each guess. Bound to the place,
 * the two never share a tag.
 */
export function placeKey(key: string | undefined, place: readonly string[]): string {
  // NUL cannot occur in a collection name, an array name or a parent id: the parts cannot be shifted.
  return createHmac('sha256', key ?? PROCESS_KEY).update(place.join('\u0000')).digest('base64url')
}

/** The place of a collection's documents: its database (when the handle tells it) and its name. */
export function collectionPlace(db: object, collectionName: string): string[] {
  return [databaseName(db) ?? '', collectionName]
}

/** JSON with object keys sorted at every level. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as WireDoc)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as WireDoc)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
