import { isDeepStrictEqual } from 'node:util'
import type { WireDoc } from '../store/store.js'

/** One operation of an RFC 6902 JSON Patch, as the dispatch takes it. */
export type PatchOperation = { readonly op: 'add', readonly path: string, readonly value: unknown } | { readonly op: 'remove', readonly path: string }

/**
 * The JSON Patch that turns `before` into `after` on the top-level `fields` an update touched: each
 * changed field written whole (`add` replaces a member), each removed one removed. Written whole
 * rather than path by path, so the patch never depends on how arrays moved; an unchanged field is
 * left out, and an update that changes nothing makes an empty patch (nothing is written).
 */
export function jsonPatchOf(before: WireDoc, after: WireDoc, fields: Iterable<string>): PatchOperation[] {
  const patch: PatchOperation[] = []
  for (const field of fields) {
    const path = `/${field.replace(/~/g, '~0').replace(/\//g, '~1')}`
    const had = Object.hasOwn(before, field)
    const has = Object.hasOwn(after, field)
    if (had && !has) patch.push({ op: 'remove', path })
    else if (has && (!had || !isDeepStrictEqual(before[field], after[field]))) patch.push({ op: 'add', path, value: after[field] })
  }
  return patch
}
