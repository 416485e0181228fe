import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser'

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

interface PositionedJson {
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

/** The segments of a JSON Pointer, unescaped (`/routers/a~1b` -> `['routers', 'a/b']`). */
export const pointerSegments = (pointer: string) => pointer.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))

/**
 * JSON.parse, plus the line and column of every value and key, so that a configuration file's errors
 * can point at the offending text. Strict JSON (RFC 8259): no comments, no trailing commas; a key
 * repeated in one object is an error (JSON.parse would silently keep the last one). The text is read
 * by jsonc-parser (VS Code's), which gives every node's offset and every syntax error's.
 */
export function parseJsonWithPositions(text: string): PositionedJson {
  // A byte order mark is not JSON, but editors write one: read as a space, the columns stay the same.
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text
  const positionOf = positionsIn(source)
  const errors: ParseError[] = []
  const root = parseTree(source, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
  // The first error is where the text went wrong; the parser's later ones come from its recovery.
  const first = errors[0]
  if (first !== undefined || root === undefined) {
    const offset = first?.offset ?? 0
    throw new JsonSyntaxError(syntaxMessage(first === undefined ? 'ValueExpected' : printParseErrorCode(first.error), source, offset), positionOf(offset))
  }
  const positions = new Map<string, Located>()
  const value = toValue(root, '', undefined, positions, positionOf)
  return { value, positions }
}

/** The value of a node, recording its position and its members' under their pointers. */
function toValue(node: Node, pointer: string, key: Position | undefined, positions: Map<string, Located>, positionOf: (offset: number) => Position): unknown {
  positions.set(pointer, key === undefined ? { value: positionOf(node.offset) } : { value: positionOf(node.offset), key })
  const children = node.children ?? []
  if (node.type === 'array') return children.map((child, index) => toValue(child, `${pointer}/${index}`, undefined, positions, positionOf))
  if (node.type !== 'object') return node.value as unknown
  const object: Record<string, unknown> = {}
  for (const [keyNode, valueNode] of children.map((property) => property.children as [Node, Node])) {
    const name = keyNode.value as string
    if (Object.hasOwn(object, name)) throw new JsonSyntaxError(`Duplicate key ${JSON.stringify(name)}`, positionOf(keyNode.offset))
    const value = toValue(valueNode, `${pointer}/${escapePointer(name)}`, positionOf(keyNode.offset), positions, positionOf)
    // defineProperty: a key named __proto__ stays a plain key, never the object's prototype.
    Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true })
  }
  return object
}

/** Offsets to positions, by a binary search over the line starts (found once). */
function positionsIn(text: string): (offset: number) => Position {
  const lineStarts = [0]
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1)
  return (offset) => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (lineStarts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    return { line: low + 1, column: offset - lineStarts[low]! + 1 }
  }
}

/** The parser's error code in the words of the file's errors. */
function syntaxMessage(code: string, text: string, offset: number): string {
  const found = offset >= text.length ? 'end of file' : `character ${JSON.stringify(text[offset])}`
  const messages: Record<string, string> = {
    PropertyNameExpected: `Expected a key in double quotes but found ${found}`,
    ValueExpected: `Unexpected ${found}: expected a value`,
    ColonExpected: `Expected ':' but found ${found}`,
    CommaExpected: `Expected ',' but found ${found}`,
    CloseBraceExpected: `Expected ',' or '}' but found ${found}`,
    CloseBracketExpected: `Expected ',' or ']' but found ${found}`,
    EndOfFileExpected: `Unexpected ${found} after the end of the document`,
    InvalidCommentToken: 'Comments are not JSON',
    UnexpectedEndOfComment: 'Comments are not JSON',
    UnexpectedEndOfString: 'Unterminated string',
    InvalidUnicode: 'Invalid \\u escape in string',
    InvalidEscapeCharacter: 'Invalid escape in string',
    InvalidCharacter: 'Control character in string (escape it)',
    InvalidNumberFormat: 'Invalid number',
    UnexpectedEndOfNumber: 'Invalid number',
  }
  return messages[code] ?? `Unexpected ${found}`
}
