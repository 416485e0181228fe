import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { ApiFile } from './api-file.js'
import { ApiFileError } from './api-file-error.js'
import { checkApiFile } from './check-api-file.js'
import { checkFileSchema } from './check-file-schema.js'
import { JsonSyntaxError, type Located, parseJsonWithPositions } from './parse-json-positions.js'

/** An API file that passed every check, with what later errors need to point into it. */
export interface LoadedApiFile {
  api: ApiFile
  /** The name errors print (the path as given). */
  name: string
  /** The file's directory: relative paths in the file are relative to it. */
  dir: string
  positions: ReadonlyMap<string, Located>
}

/** Reads and checks an API file; throws ApiFileError listing every problem, each at its line and column. */
export async function loadApiFile(path: string): Promise<LoadedApiFile> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    throw new ApiFileError(path, [{ line: 1, column: 1, pointer: '', message: `cannot read the file: ${reason}` }])
  }
  return parseApiFile(text, path, dirname(resolve(path)))
}

/** `loadApiFile` on a text already read; `name` is what errors print, `dir` what relative paths start from. */
export function parseApiFile(text: string, name = 'api.json', dir = process.cwd()): LoadedApiFile {
  let parsed: ReturnType<typeof parseJsonWithPositions>
  try {
    parsed = parseJsonWithPositions(text)
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error
    throw new ApiFileError(name, [{ ...error.position, pointer: '', message: `invalid JSON: ${error.message}` }])
  }
  const schemaIssues = checkFileSchema(parsed.value, parsed.positions)
  if (schemaIssues.length > 0) throw new ApiFileError(name, schemaIssues)
  const api = parsed.value as ApiFile
  const issues = checkApiFile(api, parsed.positions)
  if (issues.length > 0) throw new ApiFileError(name, issues)
  return { api, name, dir, positions: parsed.positions }
}
