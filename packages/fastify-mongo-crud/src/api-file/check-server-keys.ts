import type { ApiFile } from './api-file.js'
import type { Report } from './issue-reporter.js'
import { ALGORITHMS_BY_KEY } from './jwt-algorithms.js'

const KEY_SOURCES = ['secretEnv', 'publicKeyFile', 'jwksFile'] as const
const HMAC: readonly string[] = ALGORITHMS_BY_KEY.secret

/**
 * What the JSON Schema cannot say about `auth` and `cors`: one key source, algorithms that key can
 * verify, and credentials only with a list of origins. The key itself is read when the app is built
 * (load-auth-key.ts). `refusedTop`: the top-level keys the JSON Schema refused, left out here.
 */
export function checkServerKeys(file: ApiFile, refusedTop: ReadonlySet<string>, report: Report): void {
  if (file.auth !== undefined && !refusedTop.has('auth')) checkAuth(file.auth, report)
  const cors = file.cors
  if (typeof cors === 'object' && !refusedTop.has('cors') && cors.credentials === true && cors.origins === '*') {
    report('/cors/credentials', `credentials need a list of origins: browsers refuse credentials from an API that allows any origin ('*')`)
  }
}

function checkAuth(auth: NonNullable<ApiFile['auth']>, report: Report): void {
  const sources = KEY_SOURCES.filter((key) => auth[key] !== undefined)
  if (sources.length === 0) {
    report('/auth', `'auth' lacks its key: give 'secretEnv' (an HMAC secret), 'publicKeyFile' or 'jwksFile'`)
    return
  }
  if (sources.length > 1) {
    report(`/auth/${sources[1]}`, `'auth' takes one key: '${sources[0]}' or '${sources[1]}', not both`, true)
    return
  }
  const secret = sources[0] === 'secretEnv'
  auth.algorithms?.forEach((algorithm, index) => {
    if (HMAC.includes(algorithm) === secret) return
    report(
      `/auth/algorithms/${index}`,
      secret
        ? `${algorithm} verifies with a public key ('publicKeyFile' or 'jwksFile'), not with the secret of 'secretEnv'`
        : `${algorithm} verifies with a secret ('secretEnv'), not with the public key of '${sources[0]}'`
    )
  })
}
