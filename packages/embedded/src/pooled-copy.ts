/**
 * A copy of `bytes` for a short while: decoded, compared or written, then dropped. Node hands out
 * Buffers under 4 KiB from shared 8 KiB slabs; `Uint8Array.prototype.slice` (what lmdb-js returns
 * values with) allocates an ArrayBuffer of its own per call, which cost 2.8 µs against 0.2 µs here
 * (Node 20, 180-byte documents): with the 21 keys and 21 documents of a sorted page, a third of its read
 * (bench/engine-reads.ts: 161 → 107 µs).
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
