import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'
import { invalidCursor } from '../errors.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { allOf, type Filter, type FilterValue, fieldEquals } from './filter.js'
import type { SortSpec } from './list-query.js'

/** Where the previous page ended: the sort field's value of its last document (null for null or missing) and its id. */
interface PageKey {
  value: FilterValue
  id: FilterValue
}

/**
 * The secret of routers given no `cursorSecret`: random, so cursors stay valid only in this process.
 * Instances behind one load balancer must share a secret, or a cursor one issued fails on another.
 */
const PROCESS_SECRET = randomBytes(32)
const IV_BYTES = 12

/**
 * GCM nonces without a random draw per page (randomBytes was a tenth of a sorted page's CPU): a random
 * 64-bit prefix per process and a 32-bit counter, NIST SP 800-38D's deterministic construction. Nonces
 * never repeat in a process; instances sharing a `cursorSecret` differ by their prefixes, and a counter
 * that wraps takes a new prefix.
 */
let noncePrefix = randomBytes(8)
let nonceCount = 0
function nextNonce(): Buffer {
  if (nonceCount === 0x1_0000_0000) {
    noncePrefix = randomBytes(8)
    nonceCount = 0
  }
  const nonce = Buffer.allocUnsafe(IV_BYTES)
  noncePrefix.copy(nonce, 0)
  nonce.writeUInt32BE(nonceCount++, 8)
  return nonce
}
const TAG_BYTES = 16

/**
 * Opaque page cursors: the last key sealed with AES-256-GCM under a key derived (HMAC-SHA256) from the
 * router's secret. The tag authenticates the key together with `binding` (the route, the compiled
 * filter with its scope, and the sort), so a cursor replayed with another filter, sort, scope or list
 * is refused; and the key stays unreadable, so a sort field the output model hides is not revealed.
 */
export class PageCursors {
  readonly #key: Buffer

  constructor(secret: string | Buffer | undefined) {
    this.#key = createHmac('sha256', secret ?? PROCESS_SECRET).update('fastify-mongo-crud page cursor v1').digest()
  }

  seal(binding: string, key: PageKey): string {
    const iv = nextNonce()
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    cipher.setAAD(Buffer.from(binding))
    const body = Buffer.concat([cipher.update(JSON.stringify([key.value, key.id])), cipher.final()])
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')
  }

  /** The key a cursor carries; 400 when it was altered, or issued for another binding or secret. */
  open(binding: string, cursor: string): PageKey {
    const bytes = Buffer.from(cursor, 'base64url')
    if (bytes.length <= IV_BYTES + TAG_BYTES) throw refused()
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES))
      decipher.setAAD(Buffer.from(binding))
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
      const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8')
      const [value, id] = JSON.parse(text) as [FilterValue, FilterValue]
      return { value, id }
    } catch {
      throw refused()
    }
  }
}

const refused = () =>
  invalidCursor('cursor is invalid, or was issued for another filter, sort or list: repeat the request without it to start again')

/** What a cursor is bound to: the list route, its compiled filter (scope included) and its sort. */
export function cursorBinding(route: string, filter: Filter | undefined, sort: SortSpec): string {
  return JSON.stringify([route, filter ?? null, sort.path, sort.direction])
}

/**
 * Whether pages sorted on `sort` can continue from a key: the field must hold one type (and null),
 * as a comparison in MongoDB only matches values of its own type; arrays sort by an element, objects
 * as a whole, and neither continues reliably. The identifier always does.
 */
export function keysetSortable(sort: SortSpec, typed: ShapeNode): boolean {
  if (sort.path === 'id') return true
  const node = nodeAt(typed, sort.path.split('.'))
  if (node === undefined) return false
  if (node.kind === 'objectId') return true
  if (node.kind !== 'scalar') return false
  const types = [...node.types].filter((type) => type !== 'null')
  return types.length === 1 && types[0] !== 'object' && types[0] !== 'array'
}

/** The sort field's value in a (wire) document: what the next page continues after. */
export function pageKeyOf(doc: Record<string, unknown>, sort: SortSpec): PageKey {
  let value: unknown = doc
  for (const segment of sort.path.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[segment]
  return { value: (value ?? null) as FilterValue, id: doc['id'] as FilterValue }
}

/**
 * The documents after `key` in the list's order: `{ field: direction, _id: 1 }` (or `{ _id: direction }`),
 * where MongoDB sorts null and missing values together, before every other value.
 */
export function afterKey(sort: SortSpec, key: PageKey): Filter {
  const id = (op: 'gt' | 'lt'): Filter => ({ kind: 'field', path: 'id', conditions: [{ op, value: key.id }] })
  if (sort.path === 'id') return id(sort.direction === 1 ? 'gt' : 'lt')
  const field = (op: 'gt' | 'lt' | 'ne', value: FilterValue): Filter => ({ kind: 'field', path: sort.path, conditions: [{ op, value }] })
  const sameKeyLaterId = allOf(fieldEquals(sort.path, key.value), id('gt'))!
  if (key.value === null) {
    // Null and missing come first ascending, last descending.
    return sort.direction === 1 ? { kind: 'or', items: [sameKeyLaterId, field('ne', null)] } : sameKeyLaterId
  }
  const beyond = field(sort.direction === 1 ? 'gt' : 'lt', key.value)
  if (sort.direction === -1) return { kind: 'or', items: [beyond, sameKeyLaterId, fieldEquals(sort.path, null)] }
  // The redundant lower bound beside the `$or` is what lets a query planner start an index walk at the
  // key instead of at the first document (the engine's does; a deep page then costs what the first does).
  const from: Filter = { kind: 'field', path: sort.path, conditions: [{ op: 'gte', value: key.value }] }
  return { kind: 'and', items: [from, { kind: 'or', items: [beyond, sameKeyLaterId] }] }
}
