import type { JsonSchemaObject } from './api-file.js'

/**
 * The JSON Schema of the file's `dataApi` key (docs/data-api.md): the Data API endpoint over the
 * file's routers. What the schema cannot say (keys or `auth`, names used once) check-data-api.ts says.
 */
export const dataApi: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  description:
    "Serves MongoDB's retired Atlas Data API (POST <prefix>/action/findOne, find, insertOne...) over the routers' collections, each under its router's model, guards and access. Callers send a key ('apiKey' header) or a token of 'auth' (Authorization: Bearer, or 'jwtTokenString').",
  properties: {
    appId: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', description: "The App ID of the default prefix /app/<appId>/endpoint/data/v1 (default 'data-api')." },
    prefix: { type: 'string', pattern: '^/[^\\s?#]*[^/\\s?#]$', description: 'The path before /action/<name> (default /app/<appId>/endpoint/data/v1).' },
    dataSource: { type: 'string', minLength: 1, description: "The name requests give as dataSource (default 'mongodb-atlas')." },
    database: { type: 'string', minLength: 1, description: "The name requests give as database (default: the served database's name)." },
    keys: {
      type: 'array',
      minItems: 1,
      description: "Keys callers send in the 'apiKey' header; each caller has its key's claims.",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'secretEnv'],
        properties: {
          name: { type: 'string', minLength: 1, description: 'The key\'s name, for logs (never the key).' },
          secretEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'The environment variable holding the key (32 characters or more).' },
          claims: { type: 'object', description: "The caller's claims, as a token's: what access roles ('when': { claim }) and claim guards read." },
        },
      },
    },
  },
}
