/** Items per chunk: 8,192 slots (64 KiB), under V8's large-object size. */
const CHUNK_BITS = 13
const CHUNK_SIZE = 2 ** CHUNK_BITS
const CHUNK_MASK = CHUNK_SIZE - 1

/**
 * A list that grows by chunks instead of by copying itself: a sort's list of 100,000 items, grown by
 * `push`, copies itself a dozen times on the way, and each copy past 128 KiB is a large object that
 * stays as garbage until V8's next full collection (bench/event-loop.ts: eight such sorts at once made
 * large-object garbage the better part of the heap). Here nothing is copied, and no chunk is a large object.
 */
export class ChunkedList<T> {
  readonly #chunks: T[][] = []
  #length = 0

  get length(): number {
    return this.#length
  }

  push(item: T): void {
    const at = this.#length & CHUNK_MASK
    if (at === 0) this.#chunks.push([])
    this.#chunks[this.#chunks.length - 1]![at] = item
    this.#length++
  }

  get(index: number): T {
    return this.#chunks[index >>> CHUNK_BITS]![index & CHUNK_MASK]!
  }

  set(index: number, item: T): void {
    this.#chunks[index >>> CHUNK_BITS]![index & CHUNK_MASK] = item
  }
}
