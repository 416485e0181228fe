import type { Deadline } from '../read/deadline.js'
import { PAUSE, type Pause } from '../read/pause.js'

/** Up to this many items are sorted by one Array.sort (a millisecond or two); more are sorted in runs of this size, then merged. */
const RUN = 2048
/** Items a merge moves between two looks at the slice. */
const MERGE_STEP = 256

/**
 * `items` sorted by `compare`, stably (equal items keep their order), without holding the event
 * loop: one Array.sort of 100,000 documents by a BSON comparison takes a large part of a second.
 * Runs of RUN items are each sorted by Array.sort, then merged pairwise, and between two runs and
 * every MERGE_STEP items of a merge the deadline's slice is looked at: PAUSE when it is used up
 * (pause.ts). The work is the same as one sort's (n log n comparisons), cut into slices.
 */
export function* pacedSort<T>(items: T[], compare: (a: T, b: T) => number, deadline: Deadline): Generator<Pause, T[]> {
  if (items.length <= RUN) {
    deadline.tick(items.length)
    return items.sort(compare)
  }
  let runs: T[][] = []
  for (let start = 0; start < items.length; start += RUN) {
    runs.push(items.slice(start, start + RUN).sort(compare))
    deadline.tick(RUN)
    if (deadline.due()) yield PAUSE
  }
  while (runs.length > 1) {
    const merged: T[][] = []
    for (let i = 0; i < runs.length; i += 2) {
      const left = runs[i]!
      const right = runs[i + 1]
      merged.push(right === undefined ? left : yield* merge(left, right, compare, deadline))
    }
    runs = merged
  }
  return runs[0]!
}

/** Two sorted runs as one; on ties the left run's item comes first, so the order of equal items is kept. */
function* merge<T>(left: T[], right: T[], compare: (a: T, b: T) => number, deadline: Deadline): Generator<Pause, T[]> {
  const out = new Array<T>(left.length + right.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < left.length && j < right.length) {
    out[k++] = compare(left[i]!, right[j]!) <= 0 ? left[i++]! : right[j++]!
    if (k % MERGE_STEP === 0) {
      deadline.tick(MERGE_STEP)
      if (deadline.due()) yield PAUSE
    }
  }
  while (i < left.length) out[k++] = left[i++]!
  while (j < right.length) out[k++] = right[j++]!
  return out
}
