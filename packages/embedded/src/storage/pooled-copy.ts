/**
 * A copy of `bytes` for a short while: decoded, compared or written, then dropped. Node hands out
 * Buffers under 4 KiB from shared 8 KiB slabs; `Uint8Array.prototype.slice` (what lmdb-js returns
 * values and binary keys with) allocates an ArrayBuffer of its own per call. A page sorted by an
 * index copies 21 keys and 21 documents: bench/engine-reads.ts measured that page at 161 µs with
 * lmdb-js's copies, 107 µs with these.
 * The price is that a copy pins its slab while it lives. Whatever keeps bytes for long (a sort's
 * collector) takes an exact copy instead (`exactCopy`), or the memory it holds would not be the
 * memory it counts.
 */
export function pooledCopy(bytes: Uint8Array): Buffer {
  // lmdb-js's shared read buffer says its value's size through `length`, set on the buffer: larger
  // underneath, so only that many bytes are taken.
  const size = bytes.length
  const copy = Buffer.allocUnsafe(size)
  copy.set(bytes.byteLength === size ? bytes : bytes.subarray(0, size))
  return copy
}

/** A copy in memory of its own, sized to `bytes`: what a holder charges to a memory limit is what it holds. */
export function exactCopy(bytes: Uint8Array): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes, 0, bytes.length)
}
