/** A place in a text file: 1-based line and column (columns count UTF-16 code units, as editors do). */
export interface Position {
  line: number
  column: number
}

/** Where a value sits, and for an object member, where its key sits. */
export interface Located {
  value: Position
  key?: Position
}

export interface PositionedJson {
  value: unknown
  /** Every value of the document by its JSON Pointer (`''` for the root, `/routers/notes/scope`). */
  positions: ReadonlyMap<string, Located>
}

/** A syntax error of the JSON text, at its position. */
export class JsonSyntaxError extends Error {
  readonly position: Position
  constructor(message: string, position: Position) {
    super(message)
    this.name = 'JsonSyntaxError'
    this.position = position
  }
}

/** One segment of a JSON Pointer (RFC 6901): `~` and `/` escaped. */
export const escapePointer = (segment: string | number) => String(segment).replaceAll('~', '~0').replaceAll('/', '~1')

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/**
 * JSON.parse, plus the line and column of every value and key, so that a configuration file's errors
 * can point at the offending text. Strict JSON (RFC 8259): no comments, no trailing commas; a key
 * repeated in one object is an error (JSON.parse would silently keep the last one).
 */
export function parseJsonWithPositions(text: string): PositionedJson {
  const positions = new Map<string, Located>()
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0
  // Line starts, to turn offsets into positions without scanning the text again.
  const lineStarts = [0]
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1)

  const positionOf = (offset: number): Position => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (lineStarts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    return { line: low + 1, column: offset - lineStarts[low]! + 1 }
  }
  const fail = (message: string, offset = at): never => {
    throw new JsonSyntaxError(message, positionOf(offset))
  }
  const describe = (offset: number) => (offset >= text.length ? 'end of file' : `character ${JSON.stringify(text[offset])}`)
  const skipSpace = () => {
    while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\n' || text[at] === '\r')) at++
  }
  const expect = (char: string) => {
    if (text[at] !== char) fail(`Expected '${char}' but found ${describe(at)}`)
    at++
  }

  function parseString(): string {
    const start = at
    expect('"')
    let out = ''
    for (;;) {
      if (at >= text.length) fail('Unterminated string', start)
      const char = text[at]!
      if (char === '"') {
        at++
        return out
      }
      if (char === '\\') {
        const next = text[at + 1]
        if (next === 'u') {
          const hex = text.slice(at + 2, at + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid \\u escape in string')
          out += String.fromCharCode(Number.parseInt(hex, 16))
          at += 6
        } else if (next !== undefined && ESCAPES[next] !== undefined) {
          out += ESCAPES[next]
          at += 2
        } else {
          fail(`Invalid escape '\\${next ?? ''}' in string`)
        }
        continue
      }
      if (char.charCodeAt(0) < 0x20) fail('Control character in string (escape it)')
      out += char
      at++
    }
  }

  function parseValue(pointer: string, key: Position | undefined): unknown {
    skipSpace()
    const start = at
    positions.set(pointer, key === undefined ? { value: positionOf(start) } : { value: positionOf(start), key })
    const char = text[at]
    if (char === '{') return parseObject(pointer)
    if (char === '[') return parseArray(pointer)
    if (char === '"') return parseString()
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, at)) {
        at += word.length
        return value
      }
    }
    NUMBER.lastIndex = at
    const match = NUMBER.exec(text)
    if (match !== null) {
      at += match[0].length
      return Number(match[0])
    }
    return fail(`Unexpected ${describe(at)}: expected a value`)
  }

  function parseObject(pointer: string): Record<string, unknown> {
    expect('{')
    const object: Record<string, unknown> = {}
    skipSpace()
    if (text[at] === '}') {
      at++
      return object
    }
    for (;;) {
      skipSpace()
      const keyStart = at
      if (text[at] !== '"') fail(`Expected a key in double quotes but found ${describe(at)}`)
      const key = parseString()
      if (Object.hasOwn(object, key)) fail(`Duplicate key ${JSON.stringify(key)}`, keyStart)
      skipSpace()
      expect(':')
      const value = parseValue(`${pointer}/${escapePointer(key)}`, positionOf(keyStart))
      // defineProperty: a key named __proto__ stays a plain key, never the object's prototype.
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
      skipSpace()
      if (text[at] === ',') {
        at++
        continue
      }
      if (text[at] === '}') {
        at++
        return object
      }
      fail(`Expected ',' or '}' but found ${describe(at)}`)
    }
  }

  function parseArray(pointer: string): unknown[] {
    expect('[')
    const array: unknown[] = []
    skipSpace()
    if (text[at] === ']') {
      at++
      return array
    }
    for (;;) {
      array.push(parseValue(`${pointer}/${array.length}`, undefined))
      skipSpace()
      if (text[at] === ',') {
        at++
        continue
      }
      if (text[at] === ']') {
        at++
        return array
      }
      fail(`Expected ',' or ']' but found ${describe(at)}`)
    }
  }

  const value = parseValue('', undefined)
  skipSpace()
  if (at < text.length) fail(`Unexpected ${describe(at)} after the end of the document`)
  return { value, positions }
}
