import { parseArgs } from 'node:util'
import { withUsageErrors } from './parse-options.js'
import { UsageError } from './usage.js'

export interface ImportCommand {
  command: 'import'
  /** The router's name in the API file, or its prefix. */
  router: string
  /** The documents: a .json file (an array) or a .ndjson file (one per line). */
  documents: string
  /** `--file`: the API file, default ./api.json. */
  file: string
  /** `--data`: the embedded engine's data directory, as serve takes it. */
  data: string | undefined
}

const IMPORT_OPTIONS = { file: { type: 'string' }, data: { type: 'string' } } as const

/** Parses `import <router> <file.json|file.ndjson> [--file api.json] [--data dir]` (the arguments after `import`). */
export function parseImportArgs(argv: readonly string[]): ImportCommand {
  const { values, positionals } = withUsageErrors(IMPORT_OPTIONS, () => parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: IMPORT_OPTIONS }))
  const [router, documents, ...rest] = positionals
  if (router === undefined || documents === undefined) throw new UsageError('import: give the router and the file of documents, e.g. import todos todos.ndjson')
  if (rest.length > 0) throw new UsageError(`Unexpected argument: ${rest.join(' ')}`)
  if (!/\.(json|ndjson)$/i.test(documents)) {
    throw new UsageError(`import: ${JSON.stringify(documents)} is neither .json (an array of documents) nor .ndjson (a document per line)`)
  }
  if (values.file === '' || values.data === '') throw new UsageError(`--${values.file === '' ? 'file' : 'data'} must not be empty`)
  return { command: 'import', router, documents, file: values.file ?? 'api.json', data: values.data }
}
