import type { ApiFile } from './api-file.js'
import type { Located } from './parse-json-positions.js'

/** An API file that passed every check, with what later errors need to point into it. */
export interface LoadedApiFile {
  api: ApiFile
  /** The name errors print (the path as given). */
  name: string
  /** The file's directory: relative paths in the file are relative to it. */
  dir: string
  positions: ReadonlyMap<string, Located>
}
