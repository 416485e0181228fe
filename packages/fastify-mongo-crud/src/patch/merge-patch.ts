import { isRecord } from '../is-record.js'

/**
 * RFC 7396: applies a merge patch to `target`. A member whose value is null is removed, an object
 * merges into the member (created when missing or not an object), any other value (arrays too)
 * replaces it. `target` is not changed; the result shares nothing the patch changed with it.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = applyMergePatch(result[key], value)
  }
  return result
}

/** Every path a merge patch writes: each member, and inside an object value, each of its members. */
export function mergePatchPaths(patch: Record<string, unknown>, at: string[] = []): string[][] {
  return Object.entries(patch).flatMap(([key, value]) => {
    const path = [...at, key]
    return isRecord(value) && Object.keys(value).length > 0 ? mergePatchPaths(value, path) : [path]
  })
}
