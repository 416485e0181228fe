/**
 * The suggestion every "unknown name" message makes (a key of the API file, a model, a router, a
 * field, a command of the command line): the known name `name` is most likely a misspelling of.
 * One function, so that every message suggests by the same rule.
 */

/**
 * `: did you mean 'collection'?` when one of `known` is close to `name`, else `''`: messages end with
 * it (after the names they list), so that every message keeps the shape it has without one.
 */
export function didYouMean(name: string, known: Iterable<string>): string {
  const closest = closestName(name, known)
  return closest === undefined ? '' : `: did you mean '${closest}'?`
}

/**
 * The name of `known` closest to `name` by Damerau-Levenshtein distance (an insertion, deletion,
 * substitution or swap of two neighbours costs 1), ignoring case; undefined when none is within a
 * third of the longer name's length (at least 1). A third lets `colection`, `titel` or `Nte` find
 * their name while `age` does not suggest `name`. On a tie, the first of `known` wins: suggestions
 * do not depend on anything but the names.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  const lowered = name.toLowerCase()
  for (const candidate of known) {
    if (candidate === name) continue
    const limit = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3))
    const distance = editDistance(lowered, candidate.toLowerCase())
    if (distance <= limit && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/** The optimal string alignment distance (Damerau-Levenshtein where no substring is edited twice), in three rows. */
function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let distance = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, beforePrevious[j - 2]! + 1)
      row.push(distance)
    }
    beforePrevious = previous
    previous = row
  }
  return previous[b.length]!
}
