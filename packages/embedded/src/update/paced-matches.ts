import { toValueKey } from '../bson/value-key.js'
import type { Collation } from '../collation/collation.js'
import type { CollectionCore, Found } from '../collection/collection-core.js'
import type { Document } from '../document.js'
import { Deadline } from '../pace/deadline.js'
import { nextTurn, PAUSE } from '../pace/pause.js'
import { compileFilter, filterCollation } from '../query/compile-filter.js'
import { decodeStored, scanStored } from '../read/scan-documents.js'

/**
 * Every match of a multi-document write (updateMany, deleteMany), collected before any is changed (a
 * write never sees its own effects) as `CollectionCore.matching` does, but in slices: the scan pauses as a
 * read's does (pace/pause.ts) and the event loop runs between two. An unindexed filter over 100,000
 * documents held the loop for the whole scan, every other client waiting. The write holds its
 * collection's queue meanwhile, so no other write moves what it scans; reads go on.
 */
export async function matchesInSlices(core: CollectionCore, filter: Document, maxTimeMS: number | undefined, collation?: Collation): Promise<Found[]> {
  const collated = filterCollation(filter, collation)
  const matches = compileFilter(filter, collated)
  const deadline = new Deadline(maxTimeMS)
  const found: Found[] = []
  deadline.resume()
  const scan = scanStored(core.storage, core.pointKeys(filter, { collation: collated }), matches, deadline, undefined)
  try {
    for (let step = scan.next(); !step.done; step = scan.next()) {
      if (step.value !== PAUSE) {
        const doc = decodeStored(step.value)
        found.push([toValueKey(doc['_id']), doc])
        continue
      }
      // Only the time spent scanning counts against maxTimeMS, not the wait for the loop's next turn.
      deadline.pause()
      const turn = await nextTurn()
      deadline.resume()
      deadline.startSlice(turn)
    }
  } finally {
    scan.return(undefined)
  }
  return found
}
