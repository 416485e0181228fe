import { exactCopy } from '../storage/pooled-copy.js'
import type { Storage } from '../storage/storage.js'

/** Bytes of documents written per batch while moving a collection. */
const BATCH_BYTES = 4 * 1024 * 1024

/**
 * Moves a collection to another storage name (a rename): its documents, its index definitions and
 * its options, then drops the old name. The storage has no rename, so the documents are copied, in
 * batches; the indexes come without their entries, which the new name builds from its documents as
 * after a restore (index-catalog.ts), reads meanwhile using none of them. The copy comes first and
 * the drop last: a crash between them leaves the documents under both names, none lost. The caller
 * holds both names' write queues.
 */
export async function moveCollection(storage: Storage, from: string, to: string): Promise<void> {
  const target = storage.collection(to)
  await storage.writeIndexes(to, storage.readIndexes(from).map(({ name, key, unique }) => ({ name, key, unique })))
  const options = storage.readOptions(from)
  if (Object.keys(options).length > 0) await storage.writeOptions(to, options)
  let puts: [string, Uint8Array][] = []
  let bytes = 0
  // Each document is held until its batch is written: an exact copy, not a view of the storage's read buffer.
  const walk = storage.collection(from).visit(exactCopy)
  for (let next = walk.next(); !next.done; next = walk.next()) {
    puts.push(next.value)
    bytes += next.value[1].length
    if (bytes < BATCH_BYTES) continue
    await target.write({ puts })
    puts = []
    bytes = 0
  }
  if (puts.length > 0) await target.write({ puts })
  await storage.dropCollection(from)
}
