/**
 * The API file as the loader hands it on, once it matched schema/api-file.schema.json and the
 * semantic checks (check-api-file.ts). docs/api-file.md describes every key.
 */
import type { OpenAPIDocsOptions } from '../docs/register-docs.js'
import type { LIMIT_KEYS, PlainRouterOptions } from '../options/router-option-schemas.js'
import type { SharedRouterKey } from './file-router-keys.js'

export type RouteKey = 'getAll' | 'getOne' | 'createOne' | 'replaceOne' | 'updateOne' | 'deleteOne'

export type JsonSchemaObject = Record<string, unknown>

export interface ModelDeclaration {
  type: 'object'
  title?: string
  description?: string
  properties: Record<string, JsonSchemaObject>
  required?: string[]
  additionalProperties?: false
}

export interface Guard {
  header: string
  equals: string | string[]
  status?: 401 | 403
  detail?: string
  /** The scheme of `openapi.securitySchemes` the guard enforces; default: the one named after its header (to-openapi-options.ts). */
  securityScheme?: string
}

export type Guards = Partial<Record<RouteKey, Guard[]>>

/** The router options of the same names (router-option-schemas.ts). */
export type RouterLimits = Pick<PlainRouterOptions, (typeof LIMIT_KEYS)[number]>

export interface Scope {
  field: string
  header: string
  detail?: string
  /** The router option `filtersUnderScope`. */
  filters?: PlainRouterOptions['filtersUnderScope']
  /** Whether creates may choose a document's `id` (`clientIdsUnderScope`): refused by default. */
  clientIds?: PlainRouterOptions['clientIdsUnderScope']
  /** As a guard's `securityScheme`. */
  securityScheme?: string
}

/** What a router, a lookup and an embed have in common: a model, how its output is shaped, and access. */
export interface ModelUse {
  model: string
  modelOut?: string
  hidden?: string[]
  disable?: RouteKey[]
  guards?: Guards
}

export interface LookupDeclaration extends ModelUse {
  prefix: string
  collection: string
  localField?: string
  foreignField: string
}

export interface EmbedDeclaration extends ModelUse {
  name: string
}

/** A router: the router options of file-router-keys.ts under their own names, and the file's own keys. */
export interface RouterDeclaration extends ModelUse, Pick<PlainRouterOptions, SharedRouterKey> {
  prefix: string
  /** The router option `collectionName`. */
  collection: string
  scope?: Scope
  limits?: RouterLimits
  populates?: Array<{ field: string, router: string }>
  lookups?: LookupDeclaration[]
  embeds?: EmbedDeclaration[]
}

export interface ApiFile {
  $schema?: string
  title?: string
  version?: string
  description?: string
  database?: { engine: 'embedded' | 'mongodb', path?: string, name?: string }
  limits?: RouterLimits & { bodyLimit?: number }
  /** createApp's `openapi` option: license, contact, servers, tags, securitySchemes, security. */
  openapi?: OpenAPIDocsOptions
  models: Record<string, ModelDeclaration>
  routers: Record<string, RouterDeclaration>
}
