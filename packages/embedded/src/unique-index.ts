import type { Document } from './document.js'
import { toValueKey } from './value-key.js'

/** One index key: its canonical string and the values shown in a duplicate-key error. */
interface IndexKey {
  key: string
  keyValue: Record<string, unknown>
}

/**
 * The in-memory side of a unique index: index key -> storage key of the owning document.
 *
 * Server semantics: a missing field indexes as null (two documents lacking the field collide);
 * an array field indexes each element (multikey), so elements must be unique across documents;
 * a compound index combines every field's values. Callers run checks and updates inside the
 * collection's write queue, so a check and the matching `add` can never interleave with another
 * write.
 */
export class UniqueIndex {
  readonly name: string
  readonly fields: string[]
  readonly #owners = new Map<string, string>()

  constructor(name: string, fields: string[]) {
    this.name = name
    this.fields = fields
  }

  /** The first key of `doc` already owned by another document, if any. */
  findConflict(doc: Document, docKey: string): IndexKey | undefined {
    for (const entry of this.keysOf(doc)) {
      const owner = this.#owners.get(entry.key)
      if (owner !== undefined && owner !== docKey) return entry
    }
    return undefined
  }

  add(doc: Document, docKey: string): void {
    for (const { key } of this.keysOf(doc)) this.#owners.set(key, docKey)
  }

  remove(doc: Document, docKey: string): void {
    for (const { key } of this.keysOf(doc)) {
      if (this.#owners.get(key) === docKey) this.#owners.delete(key)
    }
  }

  /**
   * The storage key of the document indexed under `value`, for a one-field index: the only
   * document that can equal `value` on that field, alone or as an array element. Callers
   * pass only scalars whose index key is their own (see point-keys.ts).
   */
  ownerOf(value: unknown): string | undefined {
    return this.#owners.get(`${JSON.stringify(toIndexKey(value))},`)
  }

  clear(): void {
    this.#owners.clear()
  }

  keysOf(doc: Document): IndexKey[] {
    let combos: IndexKey[] = [{ key: '', keyValue: {} }]
    for (const field of this.fields) {
      const values = valuesAt(doc, field.split('.'))
      combos = combos.flatMap((combo) =>
        values.map((value) => ({
          key: `${combo.key}${JSON.stringify(toIndexKey(value))},`,
          keyValue: { ...combo.keyValue, [field]: value === EMPTY_ARRAY ? [] : value },
        }))
      )
    }
    return combos
  }
}

/** The server indexes an empty array as `undefined`, which is distinct from null. */
const EMPTY_ARRAY = Symbol('empty array')

function toIndexKey(value: unknown): string {
  return value === EMPTY_ARRAY ? 'u' : toValueKey(value)
}

/** The distinct values a dotted path reaches, expanding arrays; [null] when it reaches none. */
function valuesAt(doc: Document, path: string[]): unknown[] {
  const out: unknown[] = []
  collect(doc, path, 0, out)
  if (out.length === 0) return [null]
  const seen = new Set<string>()
  return out.filter((value) => {
    const key = toIndexKey(value)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function collect(value: unknown, path: string[], depth: number, out: unknown[]): void {
  if (depth === path.length) {
    if (!Array.isArray(value)) out.push(value ?? null)
    else if (value.length === 0) out.push(EMPTY_ARRAY)
    else out.push(...value)
    return
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(item, path, depth, out)
    return
  }
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    collect((value as Record<string, unknown>)[path[depth]!], path, depth + 1, out)
  }
}
