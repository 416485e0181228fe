import type { FastifyReply, FastifyRequest } from 'fastify'
import { preconditionFailed } from '../errors.js'
import { errorRef } from '../schema/error-schemas.js'
import type { Snapshot, WireDoc } from '../store/store.js'
import { etagOf } from './etag.js'

/**
 * Conditional requests (RFC 9110 §13): `ETag` on GET one and on every write that answers a document,
 * `If-None-Match` on GET one (304), `If-Match` on PUT, PATCH and DELETE (412), `If-None-Match: *` on
 * creates (412 when the id exists). The check of `If-Match` is part of the write itself
 * (store/compare-and-swap.ts); a missing document, or one outside the caller's scope, keeps the route's
 * usual answer, so a 412 never tells that a document the caller cannot see exists.
 */

/** Sets the `ETag` of `doc` (the stored document or item, before it is fitted to the output model). */
export function sendETag(reply: FastifyReply, doc: WireDoc, key: string | undefined): void {
  reply.header('etag', etagOf(doc, key))
}

/**
 * GET one: sets the `ETag`; true when `If-None-Match` names it (weak comparison) or is `*`, and the
 * answer is then 304 without a body.
 */
export function notModified(request: FastifyRequest, reply: FastifyReply, doc: WireDoc, key: string | undefined): boolean {
  const tag = etagOf(doc, key)
  reply.header('etag', tag)
  const tags = entityTags(request.headers['if-none-match'])
  if (tags === undefined) return false
  return tags === '*' || tags.some((sent) => opaque(sent) === opaque(tag))
}

/**
 * The preconditions of a write (docs/conditional-requests.md), as an HTTP request sent them: `If-Match`
 * on replace, update and delete, `If-None-Match: *` on create. The service API sends none. `version` is
 * the version the same command read (a patch computes its change from it): the write must find that one
 * unchanged, and nothing is read again.
 */
export interface Preconditions {
  readonly ifMatch?: string | string[] | undefined
  readonly createOnly?: boolean
  readonly version?: Snapshot
}

/**
 * The version a write must find unchanged, decided here for every write of every kind: the one the
 * command read (`version`), the one `If-Match` names (read now: `checkIfMatch`), or none.
 */
export function versionToKeep(pre: Preconditions, key: string | undefined, read: () => Promise<Snapshot | undefined>, refused: () => Error): Promise<Snapshot | undefined> {
  if (pre.version !== undefined) return Promise.resolve(pre.version)
  return checkIfMatch(pre.ifMatch, key, read, refused)
}

/** Where a conditional write of one document (or item) reads: its tags' key, the version If-Match names, whether it is still there. */
export interface WriteTarget {
  readonly key: string | undefined
  readonly read: () => Promise<Snapshot | undefined>
  readonly find: () => Promise<unknown>
}

/** A write under its preconditions: the version to keep, then the write guarded by it (compare-and-swap), 412 when another write came first. */
export async function conditionalWrite<T>(pre: Preconditions, target: WriteTarget, refused: () => Error, write: (unchanged: Snapshot | undefined) => Promise<T>): Promise<T> {
  const unchanged = await versionToKeep(pre, target.key, target.read, refused)
  return guardedWrite(unchanged, () => write(unchanged), target.find)
}

/** A patch's `If-Match` against the version it read: 412 unless one of the tags sent is that version's. */
export function requireTag(ifMatch: string | string[] | undefined, tag: string): void {
  const tags = entityTags(ifMatch)
  if (tags !== undefined && tags !== '*' && !tags.includes(tag)) throw changed()
}

/**
 * A write's `If-Match`: undefined when there is none (or `*`, which any existing document meets), or
 * the snapshot of the document whose tag it names, which the write must then find unchanged. A missing
 * document (or one out of scope) answers the route's usual refusal; another tag answers 412.
 * Comparison is strong: a weak tag (`W/"..."`) never matches.
 */
async function checkIfMatch(
  ifMatch: string | string[] | undefined,
  key: string | undefined,
  read: () => Promise<Snapshot | undefined>,
  refused: () => Error
): Promise<Snapshot | undefined> {
  const tags = entityTags(ifMatch)
  if (tags === undefined || tags === '*') return undefined
  const snapshot = await read()
  if (snapshot === undefined) throw refused()
  const tag = etagOf(snapshot.doc, key)
  if (!tags.includes(tag)) throw changed()
  return snapshot
}

/**
 * Runs a write guarded by `unchanged`. When it matches nothing and the target is still there (`find`,
 * with the write's own filter minus the guard), the guard is what failed: another write came first, 412.
 */
export async function guardedWrite<T>(
  unchanged: Snapshot | undefined,
  write: () => Promise<T>,
  find: () => Promise<unknown>
): Promise<T> {
  const result = await write()
  const missed = result === undefined || result === false
  if (missed && unchanged !== undefined && (await find()) !== undefined) throw changed()
  return result
}

/** Whether a create carries `If-None-Match: *` (create only if no document has this id). */
export function createOnly(request: FastifyRequest): boolean {
  return entityTags(request.headers['if-none-match']) === '*'
}

/** What a create with `If-None-Match: *` answers when the id (or a unique field) is taken. */
export const exists = () => preconditionFailed('Precondition failed: a document with this id already exists (If-None-Match: *)')

const changed = () => preconditionFailed('Precondition failed: the document has changed (If-Match names another version)')

/** `*`, or the entity tags of a header (`"a", W/"b"`); anything else in it is ignored. */
function entityTags(header: string | string[] | undefined): '*' | string[] | undefined {
  if (header === undefined) return undefined
  const text = Array.isArray(header) ? header.join(',') : header
  if (text.trim() === '*') return '*'
  return text.match(/(?:W\/)?"[^"]*"/g) ?? []
}

/** A tag without its weakness marker: what weak comparison compares. */
function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag
}

/** OpenAPI: the `ETag` response header of the routes that answer a document. */
export const etagHeader = {
  ETag: { type: 'string', description: 'Version of the stored document: send it back in If-Match or If-None-Match' },
}

/** OpenAPI and validation: the request headers each kind of route reads. */
export function conditionalHeaders(kind: 'read' | 'write' | 'create') {
  const properties: Record<string, object> = {}
  if (kind === 'read') {
    properties['if-none-match'] = { type: 'string', description: 'ETags (or `*`): answers 304 without a body when the document still has one of them' }
  }
  if (kind === 'write') {
    properties['if-match'] = { type: 'string', description: 'ETags (or `*`): applies only if the document still has one of them, checked atomically with the write; else 412' }
  }
  if (kind === 'create') {
    properties['if-none-match'] = { type: 'string', description: '`*`: creates only if no document has this id; else 412' }
  }
  return { type: 'object', properties }
}

/** OpenAPI: the responses conditional requests add. */
export const notModifiedResponse = { 304: { type: 'null', description: 'Not modified: the document still has a tag If-None-Match named' } }
export const preconditionFailedResponse = (what: string) => ({ 412: { ...errorRef, description: `Precondition failed: ${what}` } })
