import { getHeapStatistics } from 'node:v8'
import { exceededMemoryLimitError } from '../errors.js'

/**
 * The last line of defence against a request that fills the heap. V8 answers a full heap by
 * aborting the whole process (no exception: every client loses its server), and each value an
 * expression builds is bounded (expression-memory.ts) but many of them are not: one per document of
 * a large `$documents`, one per field of a wide `$project`, results held by open cursors.
 *
 * Every bounded operator reserves what it is about to build here; once a megabyte was reserved
 * since the last look, the heap is looked at (a fifth of a microsecond), and a build that would
 * take it past two fifths of V8's limit fails with ExceededMemoryLimit (146) instead. The
 * operation fails, its garbage is collected, and the server carries on. The heap's use includes
 * garbage not yet collected, so near the threshold an operation may be refused that a collection
 * would have let through: only when the process is that close to aborting.
 */

/**
 * The share of V8's heap limit past which builds are refused. The limit counts the young generation's
 * reserve too, which Node 24 raised from 48 to 192 MB: with `--max-old-space-size=192` the limit is 384 MB
 * there, and three quarters of it (288 MB) lie past the old space itself, so V8 aborted before the check
 * ever refused. Two fifths stay inside the old space wherever the young reserve is under 1.5 times it.
 */
const HEAP_SHARE = 0.4
/** How many bytes may be reserved between two looks at the heap. */
const LOOK_EVERY_BYTES = 1024 * 1024

let reservedSinceLook = 0

/** Throws ExceededMemoryLimit when building `bytes` more (for `what`, named in the error) would take the heap past its share. */
export function reserveHeap(bytes: number, what: string): void {
  reservedSinceLook += bytes
  if (reservedSinceLook < LOOK_EVERY_BYTES) return
  reservedSinceLook = 0
  const { used_heap_size: used, heap_size_limit: limit } = getHeapStatistics()
  if (used + bytes <= limit * HEAP_SHARE) return
  throw exceededMemoryLimitError(
    `${what} would use ${bytes} more bytes while the process heap holds ${used} of its ${limit} bytes: the engine refuses builds past two fifths of its heap limit, to keep clear of aborting`,
  )
}
