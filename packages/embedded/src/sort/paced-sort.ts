import type { Deadline } from '../pace/deadline.js'
import { PAUSE, type Pause } from '../pace/pause.js'

/** Up to this many items are sorted by one Array.sort (a millisecond or two); more are sorted in runs of this size, then merged. */
const RUN = 2048
/** Items a merge moves between two looks at the slice. */
const MERGE_STEP = 256

/**
 * `items` sorted by `compare`, stably (equal items keep their order), without holding the event
 * loop: one Array.sort of 100,000 documents by a BSON comparison takes a large part of a second.
 * Runs of RUN items are each sorted by Array.sort (in place), then merged pairwise, and between two runs and
 * every MERGE_STEP items of a merge the deadline's slice is looked at: PAUSE when it is used up
 * (pause.ts). The work is the same as one sort's (n log n comparisons), cut into slices.
 */
export function* pacedSort<T>(items: T[], compare: (a: T, b: T) => number, deadline: Deadline): Generator<Pause, T[]> {
  if (items.length <= RUN) {
    deadline.tick(items.length)
    return items.sort(compare)
  }
  for (let start = 0; start < items.length; start += RUN) {
    const run = items.slice(start, start + RUN).sort(compare)
    for (let i = 0; i < run.length; i++) items[start + i] = run[i]!
    deadline.tick(RUN)
    if (deadline.due()) yield PAUSE
  }
  // Each pass merges pairs of runs from one array into the other, then the two swap: one array of
  // n besides `items`, not a new one per merge (a sort's arrays of 100,000 items are large objects,
  // which stay as garbage until a full collection).
  let from = items
  let to = new Array<T>(items.length)
  for (let width = RUN; width < items.length; width *= 2) {
    for (let start = 0; start < items.length; start += 2 * width) {
      yield* merge(from, to, start, Math.min(start + width, items.length), Math.min(start + 2 * width, items.length), compare, deadline)
    }
    ;[from, to] = [to, from]
  }
  return from
}

/**
 * Merges the sorted runs `from[start, middle)` and `from[middle, end)` into `to[start, end)`; on ties the
 * left run's item comes first, so the order of equal items is kept.
 */
function* merge<T>(from: T[], to: T[], start: number, middle: number, end: number, compare: (a: T, b: T) => number, deadline: Deadline): Generator<Pause, void> {
  let i = start
  let j = middle
  let k = start
  while (i < middle && j < end) {
    to[k++] = compare(from[i]!, from[j]!) <= 0 ? from[i++]! : from[j++]!
    if ((k - start) % MERGE_STEP === 0) {
      deadline.tick(MERGE_STEP)
      if (deadline.due()) yield PAUSE
    }
  }
  while (i < middle) to[k++] = from[i++]!
  while (j < end) to[k++] = from[j++]!
}
