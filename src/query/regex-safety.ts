/**
 * A conservative static check against regular expressions that backtrack catastrophically.
 * JavaScript's engine cannot be interrupted mid-match, so a pattern such as `(a+)+$` would stall the
 * whole process; a time limit between documents cannot help. We refuse, before any query runs:
 * - a quantified group that itself contains a quantifier (`(a+)+`, `(.*a){20}`) — "star height" above 1;
 * - a quantified group that contains an alternation (`(a|a)*`), whose branches may overlap;
 * - backreferences (`\1`, `\k<name>`), which make matching exponential in general.
 * This refuses some harmless patterns (`(ab|cd)+`); those are rare in filters, and safety wins.
 */
export function findUnsafeRegexPart(source: string, options = ''): string | undefined {
  const pattern = options.includes('x') ? stripExtended(source) : source
  // Each open group remembers whether it holds a quantifier or an alternation.
  const stack: Array<{ quantified: boolean, alternation: boolean }> = []
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') {
      const next = pattern[i + 1] ?? ''
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return 'a backreference'
      i++
      if (!inClass && isQuantifierAt(pattern, i + 1)) markQuantified(stack)
      continue
    }
    if (inClass) {
      if (c === ']') {
        inClass = false
        if (isQuantifierAt(pattern, i + 1)) markQuantified(stack)
      }
      continue
    }
    if (c === '[') inClass = true
    else if (c === '(') stack.push({ quantified: false, alternation: false })
    else if (c === '|') {
      const top = stack[stack.length - 1]
      if (top !== undefined) top.alternation = true
    } else if (c === ')') {
      const group = stack.pop()
      if (group === undefined) continue
      if (isQuantifierAt(pattern, i + 1)) {
        if (group.quantified) return 'a repeated group that contains a repetition (nested quantifiers)'
        if (group.alternation) return 'a repeated group that contains alternatives'
        markQuantified(stack)
      } else if (group.quantified) {
        markQuantified(stack)
      }
    } else if (isQuantifierAt(pattern, i + 1) && c !== '^' && c !== '$') {
      markQuantified(stack)
    }
  }
  return undefined
}

function markQuantified(stack: Array<{ quantified: boolean }>): void {
  const top = stack[stack.length - 1]
  if (top !== undefined) top.quantified = true
}

/** `*`, `+`, `?`-free repetition counts and `{n,}` / `{n,m}` with m > 1 repeat; `?` and `{0,1}` do not. */
function isQuantifierAt(pattern: string, index: number): boolean {
  const c = pattern[index]
  if (c === '*' || c === '+') return true
  if (c !== '{') return false
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index))
  if (match === null) return false
  if (match[2] === undefined) return Number(match[1]) > 1
  return match[3] === '' || Number(match[3]) > 1
}

/**
 * Extended mode (`x`) ignores unescaped white space and `#` comments outside character classes, so
 * `( a + ) +` is `(a+)+`: the check must see the pattern the way the regex engine will.
 */
function stripExtended(pattern: string): string {
  let out = ''
  let inClass = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '\\') {
      out += c + (pattern[i + 1] ?? '')
      i++
    } else if (inClass) {
      if (c === ']') inClass = false
      out += c
    } else if (c === '[') {
      inClass = true
      out += c
    } else if (c === '#') {
      while (i < pattern.length && pattern[i] !== '\n') i++
    } else if (!/\s/.test(c)) {
      out += c
    }
  }
  return out
}
