import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { ApiFileError } from './api-file-error.js'
import { inspectApiFile } from './inspect-api-file.js'
import type { LoadedApiFile } from './loaded-api-file.js'

export type { LoadedApiFile }

/** Reads and checks an API file; throws ApiFileError listing every problem, each at its line and column. */
export async function loadApiFile(path: string): Promise<LoadedApiFile> {
  return parseApiFile(await readApiFile(path), path, dirname(resolve(path)))
}

/** `loadApiFile` on a text already read; `name` is what errors print, `dir` what relative paths start from. */
export function parseApiFile(text: string, name = 'api.json', dir = process.cwd()): LoadedApiFile {
  const { loaded, issues } = inspectApiFile(text, name, dir)
  if (loaded === undefined || issues.length > 0) throw new ApiFileError(name, issues)
  return loaded
}

/** The file's text; a file that cannot be read is an ApiFileError too. */
export async function readApiFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    throw new ApiFileError(path, [{ line: 1, column: 1, pointer: '', message: `cannot read the file: ${reason}` }])
  }
}
