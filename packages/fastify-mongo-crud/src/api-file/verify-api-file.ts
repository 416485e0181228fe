import { dirname, resolve } from 'node:path'
import { ApiFileError } from './api-file-error.js'
import { checkRegistration } from './check-registration.js'
import { authKeyIssues } from './file-auth.js'
import { inspectApiFile } from './inspect-api-file.js'
import { type LoadedApiFile, readApiFile } from './load-api-file.js'
import { refusedParts } from './refused-parts.js'

/**
 * What `fastify-mongo-crud check` runs: every check `serve` runs before it listens (the file's checks,
 * then each router's registration, on no database, and the key files of `auth`), with every problem
 * found in one run. Throws an
 * ApiFileError listing them, each at its line and column; answers the file when there is none.
 */
export async function verifyApiFile(text: string, name = 'api.json', dir = process.cwd()): Promise<LoadedApiFile> {
  const { loaded, issues } = inspectApiFile(text, name, dir)
  if (loaded === undefined) throw new ApiFileError(name, issues)
  const refused = await checkRegistration(loaded, issues)
  const keys = refusedParts(issues).top.has('auth') ? [] : await authKeyIssues(loaded)
  if (issues.length + refused.length + keys.length > 0) throw new ApiFileError(name, [...issues, ...refused, ...keys])
  return loaded
}

/** `verifyApiFile` on the file at `path`. */
export async function verifyApiFileAt(path: string): Promise<LoadedApiFile> {
  return verifyApiFile(await readApiFile(path), path, dirname(resolve(path)))
}
