/**
 * Near-matches that make a backtracking regex engine take exponential (or high-polynomial) time, and
 * the catastrophic pattern families, each with the names MongoDB matches among NAMES. Shared by the
 * HTTP and wire ReDoS tests. Each near-match is 130 characters: a backtracking engine takes from
 * seconds to far longer than a test's `timeout` on them.
 */
export const ALL_A = 'a'.repeat(130)
export const ENDS_BANG = `${'a'.repeat(129)}!`
export const FEW_A = `${'x'.repeat(111)}${'a'.repeat(19)}`
export const NAMES = ['alice', 'bob', 'abab', ALL_A, ENDS_BANG, FEW_A]

/** The families both surfaces send: the issue's own, then the classic nested repetitions. */
export const CATASTROPHIC: Array<[pattern: string, matches: string[]]> = [
  ['a*a*a*a*!', [ENDS_BANG]],
  ['a*a*a*a*a*a*!', [ENDS_BANG]],
  ['(a+)+$', [ALL_A, FEW_A]],
  ['(a|a)*b', ['abab', 'bob']],
  ['(.*a){20}', [ALL_A, ENDS_BANG]],
]
