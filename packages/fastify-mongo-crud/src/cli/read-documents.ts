import { readFile } from 'node:fs/promises'
import { JsonSyntaxError, parseJsonWithPositions } from '../api-file/parse-json-positions.js'
import { CommandFailure } from './command-failure.js'

/** A document of the file, at the line it starts on; or the line's problem when it is not JSON. */
export type DocumentLine = { line: number, document: unknown } | { line: number, problem: string }

/**
 * The documents of a .json file (an array of them; each at the line its value starts on) or of a
 * .ndjson file (one per line; blank lines skipped, a line that is not JSON is that line's problem,
 * reported with the others). A file that cannot be read, or a .json file that is not JSON or not an
 * array, is a CommandFailure: there is no document to check.
 */
export async function readDocuments(path: string): Promise<DocumentLine[]> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    throw new CommandFailure(`cannot read ${path}: ${reason}`)
  }
  return /\.ndjson$/i.test(path) ? ndjsonLines(text) : jsonArray(text, path)
}

function ndjsonLines(text: string): DocumentLine[] {
  const lines: DocumentLine[] = []
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return
    try {
      lines.push({ line: index + 1, document: JSON.parse(raw) as unknown })
    } catch (error) {
      lines.push({ line: index + 1, problem: `invalid JSON: ${(error as Error).message}` })
    }
  })
  return lines
}

function jsonArray(text: string, path: string): DocumentLine[] {
  let parsed: ReturnType<typeof parseJsonWithPositions>
  try {
    parsed = parseJsonWithPositions(text)
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error
    throw new CommandFailure(`${path}:${error.position.line}:${error.position.column}: invalid JSON: ${error.message}`)
  }
  if (!Array.isArray(parsed.value)) {
    throw new CommandFailure(`${path} holds no array: a .json file of documents is an array of them ([{...}, {...}]); for one document per line, name the file .ndjson`)
  }
  return parsed.value.map((document: unknown, index) => ({ line: parsed.positions.get(`/${index}`)?.value.line ?? 1, document }))
}
