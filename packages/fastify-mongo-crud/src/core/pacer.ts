/** The longest stretch a loop over many documents runs before it lets the event loop run. */
const SLICE_MS = 4
/** A slice also ends after this many units of work (documents), however fast: whatever the machine, a long loop lets the loop run. */
const SLICE_UNITS = 256

let waiting: Promise<number> | undefined

/**
 * Resolves in the event loop's next check phase (after its timers and I/O), with the time that turn
 * began. Every pacer that paused meanwhile resumes in that same turn and measures its slice from that
 * start, so eight large pages being shown at once hold the loop about one slice per turn, not eight
 * (each still does one unit of work per turn). The first to pause resumes first: they take turns.
 */
function nextTurn(): Promise<number> {
  waiting ??= new Promise((resolve) => {
    setImmediate(() => {
      waiting = undefined
      resolve(performance.now())
    })
  })
  return waiting
}

/**
 * Cuts a long loop (populating, fitting and serializing a large page) into slices: `pace()` between
 * two units of work resolves at once while the slice lasts, and after the event loop's next turn
 * once it has run SLICE_MS or SLICE_UNITS units, so other requests, timers and I/O are served in between.
 */
export class Pacer {
  #from = performance.now()
  #units = 0

  async pace(): Promise<void> {
    if (++this.#units < SLICE_UNITS && performance.now() - this.#from < SLICE_MS) return
    this.#from = await nextTurn()
    this.#units = 0
  }
}
