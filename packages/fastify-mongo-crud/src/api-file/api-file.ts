/**
 * The API file as the loader hands it on, once it matched schema/api-file.schema.json and the
 * semantic checks (check-api-file.ts). docs/api-file.md describes every key.
 */
import type { OpenAPIDocsOptions } from '../docs/register-docs.js'
import type { LIMIT_KEYS, PlainRouterOptions } from '../options/router-option-schemas.js'
import type { SharedRouterKey } from './file-router-keys.js'
import type { JwtAlgorithm } from './jwt-algorithms.js'

export type RouteKey = 'getAll' | 'getOne' | 'createOne' | 'replaceOne' | 'updateOne' | 'deleteOne'

/** The routes a router's `disable` may name besides the six: its `_batch`, `_groups` and `_events`. */
export type ExtraRouteKey = 'batch' | 'groups' | 'events'

export type JsonSchemaObject = Record<string, unknown>

export interface ModelDeclaration {
  type: 'object'
  title?: string
  description?: string
  properties: Record<string, JsonSchemaObject>
  required?: string[]
  additionalProperties?: false
}

/** What every guard takes besides what it checks. */
interface GuardCommon {
  status?: 401 | 403
  detail?: string
  /** The scheme of `openapi.securitySchemes` a header guard enforces; default: the one named after its header (to-openapi-options.ts). */
  securityScheme?: string
}

/** A header check: trusts the value as it arrives, so a gateway that sets the header must stand in front of the API. */
export interface HeaderGuard extends GuardCommon {
  header: string
  equals: string | string[]
  claim?: never
}

/** A check of a claim of the token `auth` verified: the claim must be there, and hold one of `equals` when given. */
export interface ClaimGuard extends GuardCommon {
  claim: string
  equals?: string | string[]
  header?: never
}

export type Guard = HeaderGuard | ClaimGuard

export type Guards = Partial<Record<RouteKey, Guard[]>>

/** The router options of the same names (router-option-schemas.ts). */
export type RouterLimits = Pick<PlainRouterOptions, (typeof LIMIT_KEYS)[number]>

interface ScopeCommon {
  field: string
  detail?: string
  /** The router option `filtersUnderScope`; `'and'` when the file does not say (to-router-options.ts). */
  filters?: PlainRouterOptions['filtersUnderScope']
  /** Whether creates may choose a document's `id` (`clientIdsUnderScope`): refused by default. */
  clientIds?: PlainRouterOptions['clientIdsUnderScope']
  /** As a header guard's `securityScheme`. */
  securityScheme?: string
}

/** Row scope by a header a trusted gateway sets. */
export interface HeaderScope extends ScopeCommon {
  header: string
  claim?: never
}

/** Row scope by a claim of the token `auth` verified. */
export interface ClaimScope extends ScopeCommon {
  claim: string
  header?: never
}

export type Scope = HeaderScope | ClaimScope

/** What a router, a lookup and an embed have in common: a model, how its output is shaped, and access. */
export interface ModelUse {
  model: string
  modelOut?: string
  hidden?: string[]
  guards?: Guards
}

export interface LookupDeclaration extends ModelUse {
  prefix: string
  collection: string
  localField?: string
  foreignField: string
  disable?: RouteKey[]
}

export interface EmbedDeclaration extends ModelUse {
  name: string
  disable?: RouteKey[]
}

/** A router: the router options of file-router-keys.ts under their own names, and the file's own keys. */
export interface RouterDeclaration extends ModelUse, Pick<PlainRouterOptions, SharedRouterKey> {
  prefix: string
  disable?: Array<RouteKey | ExtraRouteKey>
  /** The router option `collectionName`. */
  collection: string
  scope?: Scope
  /** Roles and what each may do (docs/security.md, Access policy). */
  access?: ReadonlyArray<Record<string, unknown>>
  limits?: RouterLimits
  populates?: Array<{ field: string, router: string }>
  lookups?: LookupDeclaration[]
  embeds?: EmbedDeclaration[]
}

/** How bearer tokens are verified: one key source (`secretEnv`, `publicKeyFile` or `jwksFile`). */
export interface AuthDeclaration {
  type: 'jwt'
  /** The environment variable holding the HMAC secret (HS256...). */
  secretEnv?: string
  /** A PEM public key (SPKI) or certificate, relative to the file. */
  publicKeyFile?: string
  /** A JSON Web Key Set of public keys, relative to the file. */
  jwksFile?: string
  /** Accepted algorithms; default: what the key takes (HS256 for a secret). */
  algorithms?: JwtAlgorithm[]
  issuer?: string | string[]
  audience?: string | string[]
  /** Seconds of clock difference tolerated on `exp` and `nbf` (default 0). */
  clockTolerance?: number
  /** Whether every route needs a valid token (default true); false: only the routes a claim guard or a claim scope checks. */
  required?: boolean
  /** A cookie the token is also read from, on GET (and HEAD) requests only: lists, reads, `_groups`, `_events` (a browser's EventSource sends no header). */
  cookie?: string
  /** The OpenAPI scheme name (default `bearerAuth`). */
  securityScheme?: string
}

/** @fastify/cors, as the file sets it. */
export interface CorsDeclaration {
  /** `*`, or the exact origins allowed (`https://app.example.com`). */
  origins: '*' | string[]
  credentials?: boolean
  /** Seconds a browser may cache a preflight answer. */
  maxAge?: number
}

/** @fastify/rate-limit, as the file sets it: `max` requests per client address per `timeWindow`. */
export interface RateLimitDeclaration {
  max: number
  /** Milliseconds, or a duration such as `1 minute` (default 1 minute). */
  timeWindow?: number | string
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

/** The embedded engine's `openEmbedded({ changeRetention })`: the change log `_events` resumes from. */
export interface ChangeRetention {
  events?: number
  ms?: number
}

export interface ApiFile {
  $schema?: string
  title?: string
  version?: string
  description?: string
  database?: { engine: 'embedded' | 'mongodb', path?: string, name?: string, changeRetention?: ChangeRetention }
  limits?: RouterLimits & { bodyLimit?: number }
  auth?: AuthDeclaration
  cors?: boolean | CorsDeclaration
  rateLimit?: RateLimitDeclaration
  /** Fastify's `trustProxy`: whose X-Forwarded-For gives the client address (rate limit, logs). */
  trustProxy?: boolean | string[]
  /** The level of the app's logger (default warn); `info` logs every request. */
  logLevel?: LogLevel
  /** createApp's `openapi` option: license, contact, servers, tags, securitySchemes, security. */
  openapi?: OpenAPIDocsOptions
  /** createApp's `admin` option: the admin page at /admin (docs/admin.md). */
  admin?: boolean
  /** The Data API endpoint over the routers (docs/data-api.md). */
  dataApi?: DataApiDeclaration
  models: Record<string, ModelDeclaration>
  routers: Record<string, RouterDeclaration>
}

/** The file's `dataApi`: the Data API plugin's options, its keys read from the environment. */
export interface DataApiDeclaration {
  appId?: string
  prefix?: string
  dataSource?: string
  database?: string
  keys?: Array<{ name: string, secretEnv: string, claims?: Record<string, unknown> }>
}
