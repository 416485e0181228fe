import type { ApiFile } from './api-file.js'
import type { ApiFileIssue } from './api-file-error.js'
import { checkApiFile } from './check-api-file.js'
import { checkFileSchema } from './check-file-schema.js'
import type { LoadedApiFile } from './loaded-api-file.js'
import { JsonSyntaxError, parseJsonWithPositions } from './parse-json-positions.js'
import { refusedParts } from './refused-parts.js'

/** A file as read, and every issue its checks found; `loaded` is undefined when the text is not JSON. */
interface InspectedApiFile {
  loaded: LoadedApiFile | undefined
  issues: ApiFileIssue[]
}

/**
 * The file's checks, in order: JSON syntax (the first error: what follows it is not read), the
 * format's JSON Schema, then what the schema cannot say (check-api-file.ts) on the parts the schema
 * accepted. Throws nothing for the file's problems: they are the issues.
 */
export function inspectApiFile(text: string, name: string, dir: string): InspectedApiFile {
  let parsed: ReturnType<typeof parseJsonWithPositions>
  try {
    parsed = parseJsonWithPositions(text)
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error
    return { loaded: undefined, issues: [{ ...error.position, pointer: '', message: `invalid JSON: ${error.message}` }] }
  }
  const schemaIssues = checkFileSchema(parsed.value, parsed.positions)
  const api = parsed.value as ApiFile
  const issues = [...schemaIssues, ...checkApiFile(api, parsed.positions, refusedParts(schemaIssues))]
  return { loaded: { api, name, dir, positions: parsed.positions }, issues }
}
