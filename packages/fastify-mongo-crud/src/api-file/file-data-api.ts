import type { FastifyRequest } from 'fastify'
import { type DataAPIOptions, MIN_KEY_LENGTH } from '../data-api/data-api-options.js'
import { ApiFileError, type ApiFileIssue } from './api-file-error.js'
import type { BearerAuth } from './bearer-auth.js'
import { issueReporter } from './issue-reporter.js'
import type { LoadedApiFile } from './loaded-api-file.js'

/**
 * The file's `dataApi` as the DataAPI plugin's options: each key read from the environment variable
 * it names (unset, or shorter than 32 characters, is an ApiFileError at that key, before the app
 * serves), tokens verified by the file's `auth` (its key, algorithms, issuer, audience), and the claims
 * of every caller handed to `auth`, so the routers' claim guards, scopes and access roles read the
 * claims of a key's caller as they read a token's.
 */
export function fileDataApiOptions(loaded: LoadedApiFile, auth: BearerAuth | undefined, env: NodeJS.ProcessEnv): DataAPIOptions {
  const declared = loaded.api.dataApi!
  const issues: ApiFileIssue[] = []
  const report = issueReporter(loaded.positions, issues)
  const keys = (declared.keys ?? []).flatMap(({ name, secretEnv, claims }, index) => {
    const key = env[secretEnv]
    if (key === undefined || key === '') report(`/dataApi/keys/${index}/secretEnv`, `the environment variable ${secretEnv} is not set: it holds the Data API key '${name}'`)
    else if (key.length < MIN_KEY_LENGTH) report(`/dataApi/keys/${index}/secretEnv`, `${secretEnv} holds ${key.length} characters: a Data API key needs at least ${MIN_KEY_LENGTH} (e.g. openssl rand -base64 32)`)
    else return [{ name, key, claims: claims ?? {} }]
    return []
  })
  if (issues.length > 0) throw new ApiFileError(loaded.name, issues)
  const { appId, prefix, dataSource, database } = declared
  return {
    ...(appId === undefined ? {} : { appId }),
    ...(prefix === undefined ? {} : { prefix }),
    ...(dataSource === undefined ? {} : { dataSource }),
    ...(database === undefined ? {} : { database }),
    keys,
    ...(auth === undefined
      ? {}
      : {
          verifyToken: (token: string, request: FastifyRequest) => auth.verifyToken(token, request),
          onCaller: (request: FastifyRequest, claims: Record<string, unknown>) => auth.vouch?.(request, claims),
        }),
  }
}
