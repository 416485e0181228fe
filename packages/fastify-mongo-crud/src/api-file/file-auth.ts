import { ApiFileError, type ApiFileIssue } from './api-file-error.js'
import { type BearerAuth, bearerAuth } from './bearer-auth.js'
import { issueReporter } from './issue-reporter.js'
import { loadAuthKey } from './load-auth-key.js'
import type { LoadedApiFile } from './loaded-api-file.js'

/**
 * What verifies the tokens of the file's `auth`, its key read from `env` or next to the file; undefined
 * without `auth`. A key that cannot be used is an ApiFileError at the key of the file at fault, so
 * the app never starts with token checks that cannot pass (or that anything passes).
 */
export async function fileAuth(loaded: LoadedApiFile, env: NodeJS.ProcessEnv): Promise<BearerAuth | undefined> {
  const auth = loaded.api.auth
  if (auth === undefined) return undefined
  const issues: ApiFileIssue[] = []
  const key = await loadAuthKey(auth, loaded.dir, env, issueReporter(loaded.positions, issues))
  if (key === undefined || issues.length > 0) throw new ApiFileError(loaded.name, issues)
  return bearerAuth(auth, key)
}

/** What `check` finds wrong with the key files of `auth` (the secret of `secretEnv` is the serving machine's: not looked for). */
export async function authKeyIssues(loaded: LoadedApiFile): Promise<ApiFileIssue[]> {
  const issues: ApiFileIssue[] = []
  if (loaded.api.auth !== undefined) await loadAuthKey(loaded.api.auth, loaded.dir, undefined, issueReporter(loaded.positions, issues))
  return issues
}
