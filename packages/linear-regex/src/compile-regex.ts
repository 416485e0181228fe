import { RE2JS } from 're2js'

/**
 * Client regular expressions are matched with RE2 (the pure-JavaScript port `re2js`), never with
 * JavaScript's backtracking engine: RE2 runs in time linear in the input, so no pattern (`a*a*a*a*!`,
 * `(a+)+$`, with or without `i`) can freeze the event loop. The HTTP layer (to refuse with a 422) and
 * the embedded engine (to match) both compile through here, with MongoDB's options mapped:
 * `i` case-insensitive, `m` multiline, `s` dot matches newline, `x` extended (white space and `#`
 * comments outside character classes are dropped before compiling: RE2 has no such mode).
 * What RE2 cannot express (lookarounds, backreferences, atomic groups, possessive quantifiers) is
 * refused with a `RegexRefusal` that names the feature.
 */
export class RegexRefusal extends Error {
  constructor(
    /** What is wrong, phrased to follow "the regular expression …" (e.g. "uses lookahead (?=…), which is not supported…"). */
    readonly reason: string,
    /** `options` for a bad option letter, `pattern` for anything in the pattern. */
    readonly kind: 'options' | 'pattern',
  ) {
    super(reason)
    this.name = 'RegexRefusal'
  }
}

/** The letters MongoDB accepts in `$options`. */
export const REGEX_OPTIONS = 'imsx'

/**
 * An upper bound on the compiled program. Matching is linear in the input, but the constant is the
 * program size: within 256 characters, counted repetitions (`.{1000}` thirty times over) expand to
 * tens of thousands of instructions and seconds per kilobyte of input. 2000 keeps `[a-z]{3,1000}`.
 */
export const MAX_PROGRAM_SIZE = 2000

const CACHE_SIZE = 500
const cache = new Map<string, RE2JS>()

/**
 * Compiles `pattern` with MongoDB `options` (a string of `imsx`) for linear-time matching, or throws
 * a `RegexRefusal`. Compiled patterns are cached: a filter is compiled once per operation, and the
 * same few patterns come back request after request.
 */
export function compileRegex(pattern: string, options: string): RE2JS {
  const key = `${options}\u0000${pattern}`
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  let flags = 0
  for (const option of options) {
    if (option === 'i') flags |= RE2JS.CASE_INSENSITIVE
    else if (option === 'm') flags |= RE2JS.MULTILINE
    else if (option === 's') flags |= RE2JS.DOTALL
    else if (option !== 'x') throw new RegexRefusal(`invalid flag in regex options: ${option}`, 'options')
  }
  const source = options.includes('x') ? stripExtended(pattern) : pattern
  let compiled: RE2JS
  try {
    compiled = RE2JS.compile(source, flags)
  } catch (error) {
    throw new RegexRefusal(describeFailure(source, error as Error), 'pattern')
  }
  if (Number(compiled.re2Input.numberOfInstructions()) > MAX_PROGRAM_SIZE) {
    throw new RegexRefusal(`is too large once its repetitions are expanded (more than ${MAX_PROGRAM_SIZE} steps); use smaller repetition counts`, 'pattern')
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string)
  cache.set(key, compiled)
  return compiled
}

/**
 * Why RE2 refused `source`. RE2's own messages name a lookbehind "invalid named capture" and a
 * backreference "invalid escape sequence", so the features PCRE (MongoDB) has and RE2 lacks are
 * recognized first; anything else is a plain syntax error, worded by RE2.
 */
function describeFailure(source: string, error: Error): string {
  const feature = unsupportedFeature(source)
  if (feature !== undefined) {
    return `uses ${feature}, which is not supported: regular expressions are matched in linear time (RE2 syntax)`
  }
  const detail = error.message.replace(/^error parsing regexp: /, '')
  return `is not a valid regular expression (${detail})`
}

/** A PCRE feature RE2 lacks, found in `source` outside character classes; undefined when none. */
function unsupportedFeature(source: string): string | undefined {
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === '\\') {
      const next = source[i + 1] ?? ''
      if (!inClass && (/[1-9]/.test(next) || next === 'k' || next === 'g')) return `a backreference (\\${next})`
      i++
    } else if (inClass) {
      if (c === ']') inClass = false
    } else if (c === '[') {
      inClass = true
      // A `]` right after `[` or `[^` is a literal member, not the end of the class.
      if (source[i + 1] === '^') i++
      if (source[i + 1] === ']') i++
    } else if (c === '(' && source[i + 1] === '?') {
      const group = GROUPS.find(([opener]) => source.startsWith(opener, i + 2))
      if (group !== undefined) return group[1]
    } else if (c === '+' && i > 0 && '*+?}'.includes(source[i - 1]!) && source[i - 2] !== '\\' && source[i - 2] !== '(') {
      return `a possessive quantifier (${source[i - 1]}+)`
    }
  }
  return undefined
}

/** PCRE group openers (after `(?`) RE2 has no equivalent for. */
const GROUPS: Array<[string, string]> = [
  ['=', 'lookahead (?=…)'],
  ['!', 'negative lookahead (?!…)'],
  ['<=', 'lookbehind (?<=…)'],
  ['<!', 'negative lookbehind (?<!…)'],
  ['>', 'an atomic group (?>…)'],
  ['|', 'a branch reset group (?|…)'],
  ['(', 'a conditional group (?(…)'],
  ['#', 'an inline comment (?#…)'],
  ['R', 'recursion (?R)'],
  ['&', 'a subroutine call (?&…)'],
  ['P>', 'a subroutine call (?P>…)'],
  ['P=', 'a backreference (?P=…)'],
]

/**
 * PCRE's extended mode (`x`): unescaped white space and `#` comments (to the end of the line) are
 * not part of the pattern, except inside a character class.
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
