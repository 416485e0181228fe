import { requireTag } from '../core/conditional-request.js'
import { etagOf } from '../core/etag.js'
import type { Caller } from '../core/router-context.js'
import { invalidBody, patchRetriesExhausted } from '../errors.js'
import { applyJsonPatch, jsonPatchPaths } from '../patch/json-patch.js'
import { applyMergePatch, mergePatchPaths } from '../patch/merge-patch.js'
import { PATCH_MEDIA_TYPES, type PatchMediaType } from '../patch/patch-media-types.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import type { Snapshot, WireDoc } from '../store/store.js'
import type { Preconditions } from './resource.js'

/** Attempts of a patch whose document another write changed between its read and its write. */
const ATTEMPTS = 5

/** What patching one kind of document needs (resources/): reading it, writing it whole, and its model. */
export interface PatchTarget {
  /**
   * The stored document (or item) of the path, in the caller's scope. A missing one is `Document not
   * updated` (422), as a PATCH in `application/json` answers it (docs/http-contract.md); a missing parent
   * of a child or an item is the kind's "not found".
   */
  read(caller: Caller, id: string): Promise<Snapshot>
  /** Writes the whole document as PUT does, guarded by `version` (the version read, which is not read again). */
  write(caller: Caller, id: string, body: WireDoc, preconditions: Preconditions): Promise<WireDoc>
  tagKey(caller: Caller): string
  /** The stored model's shape: a patch may name only paths it declares. */
  readonly typed: ShapeNode
  /** Top-level fields the output model shows: a hidden one is never patched (nor tested). */
  readonly shown: ReadonlySet<string>
  /** Top-level fields managed by other routes (embedded item arrays): never patched. */
  readonly kept: ReadonlySet<string>
  /** Top-level fields the caller's role may not set (access/compile-access.ts): refused by name. */
  readonly readOnly?: { readonly role: string, readonly fields: ReadonlySet<string> } | undefined
  /** The model's check of the document a patch makes (the PUT body's): a valid copy, or 422 at the field. */
  check(doc: WireDoc): WireDoc
}

/**
 * A merge patch (RFC 7396) or a JSON Patch (RFC 6902) of one document: read it, apply the patch to
 * the fields the caller may patch, check the result against the model, write it whole guarded by the
 * version read (compare-and-swap, store/compare-and-swap.ts). A write that came in between makes the
 * guard fail, and the patch is computed again on the new version (a bounded number of times), so no
 * concurrent change is lost. With `If-Match`, the version the client named must be the one patched:
 * a change in between is its 412.
 */
export async function patchDocument(target: PatchTarget, caller: Caller, id: string, type: Exclude<PatchMediaType, 'application/json'>, patch: unknown, preconditions: Preconditions): Promise<WireDoc> {
  const paths = type === PATCH_MEDIA_TYPES.merge ? mergePatchPaths(patch as Record<string, unknown>) : jsonPatchPaths(patch as Parameters<typeof jsonPatchPaths>[0])
  for (const path of paths) refusePath(target, path)
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const version = await target.read(caller, id)
    const current = version.doc
    requireTag(preconditions.ifMatch, etagOf(current, target.tagKey(caller)))
    const { patchable, aside } = split(target, current)
    const patched = type === PATCH_MEDIA_TYPES.merge ? applyMergePatch(patchable, patch) : applyJsonPatch(patchable, patch as Parameters<typeof applyJsonPatch>[1])
    const body = target.check({ ...aside, ...(patched as WireDoc) })
    try {
      return await target.write(caller, id, body, { version })
    } catch (error) {
      // The version read is gone: computed again on the new one, unless the client named a version.
      if ((error as { statusCode?: unknown }).statusCode !== 412 || preconditions.ifMatch !== undefined) throw error
    }
  }
  throw patchRetriesExhausted()
}

/** A path the patch may not name: the id, a field the model does not declare, a hidden or a kept one. */
function refusePath(target: PatchTarget, path: readonly string[]): void {
  const [field] = path
  const refuse = (why: string) => invalidBody([{ loc: ['body', ...path], msg: why, type: 'path_not_patchable' }])
  if (field === undefined) throw refuse('A patch names fields of the document, not the document itself')
  if (field === 'id' || field === '_id') throw refuse('The id of a document cannot be patched')
  if (target.kept.has(field)) throw refuse(`${field} is managed by its own routes`)
  if (target.readOnly?.fields.has(field) === true && target.shown.has(field)) throw refuse(`The role '${target.readOnly.role}' may not set ${field}`)
  if (!target.shown.has(field) || declaredAt(target.typed, path) === undefined) throw refuse('Not a field of the model')
}

/** The node a path reaches in the model; array indexes and `-` step into an array's items. */
function declaredAt(shape: ShapeNode, path: readonly string[]): ShapeNode | undefined {
  let node: ShapeNode | undefined = shape
  for (const token of path) {
    if (node === undefined) return undefined
    if (node.kind === 'any') return node
    if (node.kind === 'array') node = /^(?:0|[1-9][0-9]*|-)$/.test(token) ? node.item : undefined
    else node = nodeAt(node, [token])
  }
  return node
}

/** The fields a patch applies to (shown, declared, not the id), and those it carries over unchanged. */
function split(target: PatchTarget, current: WireDoc): { patchable: WireDoc, aside: WireDoc } {
  const patchable: WireDoc = {}
  const aside: WireDoc = {}
  const declared = target.typed.kind === 'object' ? target.typed.fields : new Map()
  for (const [field, value] of Object.entries(current)) {
    if (field === 'id' || !declared.has(field) || target.kept.has(field)) continue
    if (target.shown.has(field)) patchable[field] = value
    else aside[field] = value
  }
  return { patchable, aside }
}
