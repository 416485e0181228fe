import type { Deadline } from '../pace/deadline.js'

/** The specs of the stages being set up to work in slices, each with the deadline that cuts them. */
const sliced = new WeakMap<object, Deadline>()

/**
 * Runs `setUp` (a mingo `Aggregator`'s `stream`, which calls each stage's operator at once) with the
 * stage whose spec is `spec` told to work in slices charged to `deadline`: its operator then yields
 * PAUSE (pace/pause.ts) among its documents where a slice is used up. The engine does this for a stage
 * computed over its whole input (`$group`) that ends a run of mingo stages (aggregate-documents.ts),
 * so no other mingo stage ever sees a PAUSE. The mark lasts only while `setUp` runs: the same spec met
 * later (in a `$facet`'s or a `$lookup`'s pipeline, set up when it runs) works in one stretch.
 */
export function inSlices<T>(spec: unknown, deadline: Deadline, setUp: () => T): T {
  if (typeof spec !== 'object' || spec === null) return setUp()
  sliced.set(spec, deadline)
  try {
    return setUp()
  } finally {
    sliced.delete(spec)
  }
}

/** The deadline a stage's operator works in slices of, when the engine set its stage up so (`inSlices`); undefined: in one stretch. */
export function slicesOf(spec: unknown): Deadline | undefined {
  return typeof spec === 'object' && spec !== null ? sliced.get(spec) : undefined
}
