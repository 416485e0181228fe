/** The first chunk's size; each next one doubles, up to MAX_CHUNK_BYTES (a page of 20 takes no megabyte). */
const FIRST_CHUNK_BYTES = 16 * 1024
const MAX_CHUNK_BYTES = 1024 * 1024
/** A handle is `chunk × 2^OFFSET_BITS + offset`: offsets up to 32 MiB (a document over a chunk gets a chunk of its own). */
const OFFSET_SPAN = 2 ** 25

/**
 * The BSON documents an unbounded sort keeps, copied end to end into a few large buffers instead of
 * one buffer each: a copy of its own costs a document of 130 bytes about 300 more (the ArrayBuffer,
 * its view and their bookkeeping), more than the document itself, so a sort would hold three to
 * four times what it counts. Here it holds what it counts. A document is known by a number (`add`)
 * and read back as a view of its bytes (`get`; a BSON document starts with its length).
 *
 * Nothing is freed before the arena is dropped: for sorts that keep every document they take.
 */
export class BsonArena {
  readonly #chunks: Uint8Array[] = []
  #used = 0

  /** Copies `bytes` (one BSON document) in; the number to read it back with. */
  add(bytes: Uint8Array): number {
    let chunk = this.#chunks.at(-1)
    if (chunk === undefined || this.#used + bytes.length > chunk.length) {
      const next = Math.min(MAX_CHUNK_BYTES, chunk === undefined ? FIRST_CHUNK_BYTES : chunk.length * 2)
      chunk = new Uint8Array(Math.max(next, bytes.length))
      this.#chunks.push(chunk)
      this.#used = 0
    }
    chunk.set(bytes, this.#used)
    const handle = (this.#chunks.length - 1) * OFFSET_SPAN + this.#used
    this.#used += bytes.length
    return handle
  }

  /** The document `add` returned `handle` for: a view of the arena's bytes, valid while the arena lives. */
  get(handle: number): Uint8Array {
    const chunk = this.#chunks[Math.floor(handle / OFFSET_SPAN)]!
    const offset = handle % OFFSET_SPAN
    const size = chunk[offset]! | (chunk[offset + 1]! << 8) | (chunk[offset + 2]! << 16) | (chunk[offset + 3]! << 24)
    return chunk.subarray(offset, offset + size)
  }
}
