import type { IndexHit, IndexRange } from './storage.js'

const encoder = new TextEncoder()

/** An index entry's key in storage: the index key and `_id` (entryPrefixOf), then the document's storage key (UTF-8, no 0xff byte). */
export function entryKeyOf(key: Uint8Array, docKey: string): Uint8Array {
  const suffix = encoder.encode(docKey)
  const out = new Uint8Array(key.length + suffix.length)
  out.set(key)
  out.set(suffix, key.length)
  return out
}

/**
 * The memory backend's index: entry keys kept sorted in an array (binary search; an insert or a
 * removal shifts the tail, fine at the sizes an in-memory engine holds). A walk keeps only its
 * last key and finds its place again at each step, so writes during a walk never break it: like
 * lmdb-storage's walks, an entry removed before the walk reaches it is skipped.
 */
export class SortedEntries {
  #keys: Uint8Array[] = []
  #docKeys: string[] = []

  add(key: Uint8Array, docKey: string): void {
    const at = this.#lowerBound(key)
    if (at < this.#keys.length && Buffer.compare(this.#keys[at]!, key) === 0) return
    this.#keys.splice(at, 0, key)
    this.#docKeys.splice(at, 0, docKey)
  }

  remove(key: Uint8Array): void {
    const at = this.#lowerBound(key)
    if (at < this.#keys.length && Buffer.compare(this.#keys[at]!, key) === 0) {
      this.#keys.splice(at, 1)
      this.#docKeys.splice(at, 1)
    }
  }

  *range({ start, end, reverse }: IndexRange): Generator<IndexHit, undefined> {
    if (!reverse) {
      let at = start ? this.#lowerBound(start) : 0
      while (at < this.#keys.length) {
        const key = this.#keys[at]!
        if (end && Buffer.compare(key, end) >= 0) return undefined
        yield [key, this.#docKeys[at]!]
        // Writes may have shifted the array meanwhile: find the first key after this one again.
        at = this.#upperBound(key)
      }
      return undefined
    }
    let at = (end ? this.#lowerBound(end) : this.#keys.length) - 1
    while (at >= 0) {
      const key = this.#keys[at]!
      if (start && Buffer.compare(key, start) < 0) return undefined
      yield [key, this.#docKeys[at]!]
      at = this.#lowerBound(key) - 1
    }
    return undefined
  }

  /** The first position whose key is >= `key`. */
  #lowerBound(key: Uint8Array): number {
    let low = 0
    let high = this.#keys.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (Buffer.compare(this.#keys[mid]!, key) < 0) low = mid + 1
      else high = mid
    }
    return low
  }

  /** The first position whose key is > `key`. */
  #upperBound(key: Uint8Array): number {
    let low = 0
    let high = this.#keys.length
    while (low < high) {
      const mid = (low + high) >>> 1
      if (Buffer.compare(this.#keys[mid]!, key) <= 0) low = mid + 1
      else high = mid
    }
    return low
  }
}
