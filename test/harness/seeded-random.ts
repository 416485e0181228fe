/**
 * mulberry32: a tiny, fast PRNG with a 32-bit state, numbers in [0, 1). The same seed gives the same
 * sequence, so a failing fuzz case, random-write run or benchmark dataset can be replayed. The one
 * generator of the repository's tests and benchmarks.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
