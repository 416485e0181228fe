// What an edit changed, as an RFC 6902 JSON Patch of the document's top-level fields, and what changed
// between two versions of a document, field by field.

export type Doc = Record<string, unknown>
export interface PatchOperation {
  op: 'add' | 'replace' | 'remove'
  path: string
  value?: unknown
}

/** Key order does not matter to a document's value. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length && keysA.every((key) => Object.hasOwn(b, key) && sameValue((a as Doc)[key], (b as Doc)[key]))
}

/** A JSON Pointer to a top-level field (`~` and `/` escaped). */
export const pointer = (key: string): string => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`

/** The operations that turn `before` into `after`, over `keys` (every key of either, `id` aside, by default). */
export function diff(before: Doc, after: Doc, keys?: Iterable<string>): PatchOperation[] {
  const names = keys === undefined ? new Set([...Object.keys(before), ...Object.keys(after)]) : new Set(keys)
  names.delete('id')
  const operations: PatchOperation[] = []
  for (const key of names) {
    const had = Object.hasOwn(before, key)
    const has = Object.hasOwn(after, key)
    if (had && !has) operations.push({ op: 'remove', path: pointer(key) })
    else if (has && !sameValue(before[key], after[key])) operations.push({ op: had ? 'replace' : 'add', path: pointer(key), value: after[key] })
  }
  return operations
}

/** The fields whose value differs between two versions: `[field, before, after]`, undefined where absent. */
export function changedFields(before: Doc, after: Doc): Array<[string, unknown, unknown]> {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)])
  return [...keys].filter((key) => !sameValue(before[key], after[key])).map((key) => [key, before[key], after[key]])
}
