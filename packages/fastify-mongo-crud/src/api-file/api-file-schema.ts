import { LIMIT_KEYS } from '../options/router-option-schemas.js'
import { disable, guard, guards, header, routeName, routerDisable, securityScheme, securitySchemeName } from './access-schemas.js'
import type { JsonSchemaObject } from './api-file.js'
import { dataApi } from './data-api-schema.js'
import { field, fieldName, model, modelName, typeName } from './model-schemas.js'
import { openapi } from './openapi-schema.js'
import { fieldList, router, routerLimits } from './router-schema.js'
import { auth, cors, logLevel, rateLimit, trustProxy } from './server-schemas.js'

/** Where the package ships the schema this module makes (scripts/write-api-file-schema.ts writes it). */
export const API_FILE_SCHEMA_URL: URL = new URL('../../schema/api-file.schema.json', import.meta.url)

const IDENTIFIER_KEYS = { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }

const database: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['engine'],
  description: 'Where the data lives, unless the command line or the environment says otherwise.',
  properties: {
    engine: { enum: ['embedded', 'mongodb'], description: "'embedded' (the @fastify-mongo-crud/embedded package) or 'mongodb' (MONGODB_URI)." },
    path: { type: 'string', minLength: 1, description: 'Embedded engine: data directory, relative to this file (default: in memory).' },
    name: { type: 'string', minLength: 1, description: 'MongoDB: database name (default: the one in MONGODB_URI).' },
    changeRetention: {
      type: 'object',
      additionalProperties: false,
      description:
        "Embedded engine: how much of its change log is kept, which a <prefix>/_events subscriber resumes from (Last-Event-ID; older: 410). MongoDB keeps changes as long as its oplog does.",
      properties: {
        events: { type: 'integer', minimum: 1, description: 'Changes kept at most (default 10000).' },
        ms: { type: 'integer', minimum: 1, description: 'Milliseconds a change is kept at most (default: no age limit).' },
      },
    },
  },
}

const limits: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  description: "Limits of the whole API: the body size, and defaults of every router's limits.",
  properties: {
    bodyLimit: { type: 'integer', minimum: 1, description: "Largest request body, in bytes (Fastify's bodyLimit, default 1048576)." },
    ...Object.fromEntries(LIMIT_KEYS.map((key) => [key, { $ref: `#/definitions/routerLimits/properties/${key}` }])),
  },
}

/**
 * The API file format's JSON Schema, as the package ships it in schema/api-file.schema.json (a test
 * fails when the two differ). The router options in it are generated from their declarations.
 */
export function apiFileSchema(): JsonSchemaObject {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://github.com/fastify-mongo-crud/fastify-mongo-crud/schema/api-file.schema.json',
    title: 'fastify-mongo-crud API file',
    description: 'An API served by `npx fastify-mongo-crud serve <file>`: models, routers, relations, scope and limits. See docs/api-file.md.',
    type: 'object',
    additionalProperties: false,
    required: ['models', 'routers'],
    properties: {
      $schema: { type: 'string', description: "This schema's path or URL, for editors." },
      title: { type: 'string', description: "The API's title in /docs (default 'API')." },
      version: { type: 'string', description: "The API's version in /docs (default '1.0.0')." },
      description: { type: 'string', description: "The API's description in /docs." },
      database,
      limits,
      auth,
      cors,
      rateLimit,
      trustProxy,
      logLevel,
      openapi,
      dataApi,
      admin: { type: 'boolean', description: 'true serves the admin page at /admin (docs/admin.md); the command\'s --admin turns it on too. Default false.' },
      models: {
        type: 'object',
        description: "Models by name: JSON Schema objects. A router's 'model' validates bodies; its 'modelOut' shapes responses.",
        propertyNames: IDENTIFIER_KEYS,
        additionalProperties: { $ref: '#/definitions/model' },
      },
      routers: {
        type: 'object',
        description: 'Routers by name, registered in this order.',
        propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_-]*$' },
        additionalProperties: { $ref: '#/definitions/router' },
      },
    },
    definitions: { modelName, fieldName, header, routeName, model, field, typeName, routerLimits, guard, guards, disable, routerDisable, fieldList, router, securitySchemeName, securityScheme },
  }
}

/** The text of schema/api-file.schema.json. */
export const apiFileSchemaText = () => `${JSON.stringify(apiFileSchema(), null, 2)}\n`
