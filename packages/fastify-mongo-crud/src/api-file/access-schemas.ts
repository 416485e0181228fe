import { EXTRA_ROUTE_NAMES, ROUTE_NAMES } from '../route-names.js'
import type { JsonSchemaObject } from './api-file.js'

/** The JSON Schema of the file's access checks: route names, guards, and the security schemes they name. */

const ref = (name: string) => ({ $ref: `#/definitions/${name}` })

const lowerFirst = (name: string) => name[0]!.toLowerCase() + name.slice(1)
const ROUTE_KEYS = ROUTE_NAMES.map(lowerFirst)

export const header: JsonSchemaObject = { type: 'string', pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$", description: 'An HTTP header name (any case).' }

export const routeName: JsonSchemaObject = { enum: ROUTE_KEYS }

/** A claim of the verified token, by its name in the payload (`sub`, `role`, `https://example.com/roles`). */
export const claimName: JsonSchemaObject = { type: 'string', minLength: 1, description: "A claim of the token 'auth' verified, by its name in the payload ('sub', 'role')." }

/** As a header guard's, a header scope's: the scheme it enforces. */
export const securitySchemeOfCheck: JsonSchemaObject = {
  ...ref('securitySchemeName'),
  description: 'The scheme of openapi.securitySchemes this check enforces, for the OpenAPI document (default: an apiKey scheme named after the header).',
}

export const guard: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  description:
    "a guard: { header, equals } (a header set by a gateway you trust, as it arrives) or { claim, equals? } (a claim of the token 'auth' verified)",
  anyOf: [{ required: ['header', 'equals'] }, { required: ['claim'] }],
  properties: {
    header: { ...ref('header'), description: 'A header a gateway in front of the API sets: its value is trusted as it arrives.' },
    claim: claimName,
    equals: { description: 'a value, or a list of accepted values', anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
    status: { enum: [401, 403], description: 'Status of a refusal (default 403).' },
    detail: { type: 'string', minLength: 1, description: "The refusal's detail (default names the header or the claim)." },
    securityScheme: securitySchemeOfCheck,
  },
}

export const guards: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  description: 'Checks run before a route, by route name.',
  properties: Object.fromEntries(ROUTE_KEYS.map((key) => [key, { type: 'array', items: ref('guard') }])),
}

export const disable: JsonSchemaObject = { type: 'array', items: ref('routeName'), uniqueItems: true, description: 'Routes left out.' }

/** A router's `disable`: its six routes, and the `_batch`, `_groups` and `_events` it has besides (`batch`, `groups`, `events`). */
export const routerDisable: JsonSchemaObject = {
  type: 'array',
  items: { enum: [...ROUTE_KEYS, ...EXTRA_ROUTE_NAMES.map(lowerFirst)] },
  uniqueItems: true,
  description: 'Routes left out: the six by name, and <prefix>/_batch, /_groups, /_events as batch, groups, events.',
}

export const securitySchemeName: JsonSchemaObject = {
  type: 'string',
  pattern: '^[A-Za-z0-9._-]+$',
  description: "A security scheme's name (letters, digits, '.', '_', '-').",
}

const closed = (required: string[], properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties: { ...properties, description: { type: 'string' } },
})
const text = { type: 'string', minLength: 1 }

export const securityScheme: JsonSchemaObject = {
  description:
    'an OpenAPI security scheme: { type: apiKey, in, name }, { type: http, scheme, bearerFormat? }, { type: oauth2, flows } or { type: openIdConnect, openIdConnectUrl }, each with an optional description',
  anyOf: [
    closed(['type', 'in', 'name'], { type: { const: 'apiKey' }, in: { enum: ['header', 'query', 'cookie'] }, name: text }),
    closed(['type', 'scheme'], { type: { const: 'http' }, scheme: text, bearerFormat: { type: 'string' } }),
    closed(['type', 'flows'], { type: { const: 'oauth2' }, flows: { type: 'object' } }),
    closed(['type', 'openIdConnectUrl'], { type: { const: 'openIdConnect' }, openIdConnectUrl: text }),
  ],
}
