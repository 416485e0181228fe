import type { FastifyRequest } from 'fastify'
import { SetupError } from '../errors.js'
import { isRecord } from '../is-record.js'

/** A key of the endpoint: a caller that sends it in the `apiKey` header has its claims. */
export interface DataApiKey {
  /** Its name, for logs and errors (never the key). */
  readonly name: string
  /** The secret itself, at least 32 characters (an API file names the environment variable holding it). */
  readonly key: string
  /** The caller's claims: what the routers' `access` roles and claim checks read (`{ "sub": "reporting", "role": "reader" }`). */
  readonly claims?: Readonly<Record<string, unknown>>
}

/** Options of the `DataAPI` plugin (docs/data-api.md). */
export interface DataAPIOptions {
  /** The names of the routers served (their `name` option, by default their collection's name); default: every router of the app. */
  routers?: readonly string[]
  /** The App ID of the default prefix `/app/<appId>/endpoint/data/v1`; default `data-api`. */
  appId?: string
  /** The path of the endpoint, before `/action/<name>`; default `/app/<appId>/endpoint/data/v1`. A Fastify register option too. */
  prefix?: string
  /** The name requests give as `dataSource`; default `mongodb-atlas`. */
  dataSource?: string
  /** The name requests give as `database`; default the name of the routers' database. */
  database?: string
  /** Keys sent in the `apiKey` header. */
  keys?: readonly DataApiKey[]
  /**
   * Verifies a token sent as `Authorization: Bearer <token>` or in the `jwtTokenString` header, and answers
   * its claims; a rejection is 401. An API file verifies them with its `auth`.
   */
  verifyToken?: (token: string, request: FastifyRequest) => Promise<Record<string, unknown>>
  /** The largest request body, in bytes; default the app's `bodyLimit`. */
  bodyLimit?: number
  /** Called once a request's caller is known, with its claims: how an app hands them to checks that read them elsewhere (an API file's token checks). */
  onCaller?: (request: FastifyRequest, claims: Record<string, unknown>) => void
}

/** The options once checked, with their defaults. */
export interface ResolvedDataApiOptions {
  readonly routers: readonly string[] | undefined
  readonly prefix: string
  readonly dataSource: string
  readonly database: string | undefined
  readonly keys: readonly DataApiKey[]
  readonly verifyToken: DataAPIOptions['verifyToken']
  readonly bodyLimit: number | undefined
}

/** Keys shorter than this are refused: a key is a password a script sends on every request. */
export const MIN_KEY_LENGTH = 32

const fail = (message: string) => new SetupError('FMC_ERR_OPTIONS_INVALID', `DataAPI: ${message}`)

/** Checks the options (a SetupError names the one at fault) and fills in the defaults. */
export function resolveDataApiOptions(raw: DataAPIOptions & { prefix?: string }, registeredPrefix: string): ResolvedDataApiOptions {
  if (!isRecord(raw as unknown)) throw fail('the options must be an object')
  const appId = raw.appId ?? 'data-api'
  if (typeof appId !== 'string' || !/^[A-Za-z0-9_-]+$/.test(appId)) throw fail(`'appId' must be letters, digits, '-' and '_', received ${JSON.stringify(appId)}`)
  for (const key of ['dataSource', 'database'] as const) {
    if (raw[key] !== undefined && (typeof raw[key] !== 'string' || raw[key] === '')) throw fail(`'${key}' must be a non-empty string`)
  }
  if (raw.routers !== undefined && (!Array.isArray(raw.routers) || !raw.routers.every((name) => typeof name === 'string'))) throw fail(`'routers' must be an array of router names`)
  if (raw.verifyToken !== undefined && typeof raw.verifyToken !== 'function') throw fail(`'verifyToken' must be a function (token, request) => claims`)
  const keys = checkKeys(raw.keys)
  if (keys.length === 0 && raw.verifyToken === undefined) {
    throw fail("it needs 'keys' or 'verifyToken': every Data API request names its caller (an apiKey header, or a token)")
  }
  if (raw.bodyLimit !== undefined && (!Number.isInteger(raw.bodyLimit) || raw.bodyLimit < 1)) throw fail(`'bodyLimit' must be a positive integer`)
  return {
    routers: raw.routers,
    // Fastify applied a `prefix` given at registration already; without one, the Data API's own path.
    prefix: registeredPrefix !== '' ? '' : `/app/${appId}/endpoint/data/v1`,
    dataSource: raw.dataSource ?? 'mongodb-atlas',
    database: raw.database,
    keys,
    verifyToken: raw.verifyToken,
    bodyLimit: raw.bodyLimit,
  }
}

function checkKeys(keys: unknown): DataApiKey[] {
  if (keys === undefined) return []
  if (!Array.isArray(keys)) throw fail(`'keys' must be an array of { name, key, claims? }`)
  const names = new Set<string>()
  return keys.map((entry, index) => {
    if (!isRecord(entry) || typeof entry['name'] !== 'string' || entry['name'] === '') throw fail(`keys[${index}] must be { name, key, claims? } with a non-empty name`)
    const { name, key, claims } = entry as { name: string, key: unknown, claims?: unknown }
    if (names.has(name)) throw fail(`keys[${index}]: '${name}' names two keys`)
    names.add(name)
    if (typeof key !== 'string' || key.length < MIN_KEY_LENGTH) throw fail(`keys[${index}] ('${name}'): the key must be a string of at least ${MIN_KEY_LENGTH} characters`)
    if (claims !== undefined && !isRecord(claims)) throw fail(`keys[${index}] ('${name}'): 'claims' must be an object`)
    return { name, key, claims: (claims ?? {}) as Record<string, unknown> }
  })
}
