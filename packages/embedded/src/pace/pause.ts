/**
 * How a long read leaves the event loop free: its generator yields PAUSE between two slices of
 * work (deadline.ts decides when a slice is used up), and the cursor that pulls it waits for the
 * loop's next turn (`nextTurn`) before it pulls again. Timers, I/O and other requests run in between.
 */
export const PAUSE: unique symbol = Symbol('pause')
export type Pause = typeof PAUSE

/** What a paced read yields: its values, and pauses. */
export type Paced<T> = Generator<T | Pause, undefined>

let waiting: Promise<number> | undefined

/**
 * Resolves in the event loop's next check phase (after its timers and I/O), with the time that turn
 * began. Every read that paused meanwhile resumes in that same turn, and they share one slice of it
 * (the time it began is their slices' common start): eight concurrent reads hold the loop no longer
 * per turn than one does. The first to pause resumes first, so the reads take turns.
 */
export function nextTurn(): Promise<number> {
  waiting ??= new Promise((resolve) => {
    setImmediate(() => {
      waiting = undefined
      resolve(performance.now())
    })
  })
  return waiting
}

/** The values of a paced read, its pauses skipped: for callers that run it in one stretch (writes, which run in their queue). */
export function* unpaced<T>(paced: Generator<T | Pause, undefined>): Generator<T, undefined> {
  try {
    for (let step = paced.next(); !step.done; step = paced.next()) if (step.value !== PAUSE) yield step.value as T
  } finally {
    paced.return(undefined)
  }
  return undefined
}

/** Runs a paced step that returns a value (a sort) in one stretch, its pauses skipped. */
export function runUnpaced<R>(paced: Generator<Pause, R>): R {
  for (;;) {
    const step = paced.next()
    if (step.done) return step.value
  }
}
