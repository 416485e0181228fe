import { randomBytes, randomFillSync } from 'node:crypto'

/** Random steps drawn in bulk: one system call per 1024 ids instead of one per id. */
const steps = new Uint16Array(1024)
let used = steps.length
/** Starts at a random point, with room below 2^64 for centuries of steps. */
let counter = randomBytes(8).readBigUInt64BE(0) >> 4n

/**
 * The 12 bytes of a fresh ObjectId for a document the server creates: the creation second first, then
 * a 64-bit counter that advances by a random step of 1 to 65,536. Ids still sort in creation order
 * (`sort_by=id`), but the next one cannot be guessed: the driver's own ids are a process constant plus
 * a counter that advances by one, so a client could plant documents at the next ids and make other
 * clients' creates fail. The bytes become an ObjectId of the store's driver (object-id.ts).
 */
export function newObjectId(): Buffer {
  if (used === steps.length) {
    randomFillSync(steps)
    used = 0
  }
  counter += BigInt(steps[used++]!) + 1n
  const bytes = Buffer.alloc(12)
  bytes.writeUInt32BE(Math.floor(Date.now() / 1000), 0)
  bytes.writeBigUInt64BE(counter & 0xffffffffffffffffn, 4)
  return bytes
}
