import type { JsonSchemaObject } from './api-file.js'
import { DURATION_PATTERN } from './duration.js'
import { JWT_ALGORITHMS } from './jwt-algorithms.js'

/**
 * The JSON Schema of the file's keys about serving on an open network: token verification (`auth`),
 * CORS, the rate limit, the proxy in front, and logging. Choices that exclude each other are
 * checked after the schema (check-server-keys.ts), where a message can say which.
 */

const text = { type: 'string', minLength: 1 }
const oneOrMore = (description: string) => ({ description, anyOf: [text, { type: 'array', items: text, minItems: 1 }] })

export const auth: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  description:
    "Verifies a JWT sent as 'Authorization: Bearer <token>' (or, on GET requests, in the cookie 'cookie' names) (401 when missing, expired or forged), whose claims guards and scopes read. One key: 'secretEnv', 'publicKeyFile' or 'jwksFile'.",
  properties: {
    type: { const: 'jwt' },
    secretEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'The environment variable holding the HMAC secret (HS256: 32 bytes or more).' },
    publicKeyFile: { ...text, description: 'A PEM public key (SPKI) or X.509 certificate, relative to this file (RS256, ES256, EdDSA...).' },
    jwksFile: { ...text, description: 'A JSON Web Key Set of public keys, relative to this file; a token names its key by kid.' },
    algorithms: { type: 'array', items: { enum: [...JWT_ALGORITHMS] }, minItems: 1, uniqueItems: true, description: 'Accepted algorithms (default: those of the key).' },
    issuer: oneOrMore("Accepted 'iss' claims (default: any)."),
    audience: oneOrMore("Accepted 'aud' claims (default: any)."),
    clockTolerance: { type: 'integer', minimum: 0, maximum: 300, description: "Seconds of clock difference tolerated on 'exp' and 'nbf' (default 0)." },
    required: { type: 'boolean', description: 'Every route needs a valid token (default true); false: only the routes a claim guard or a claim scope checks.' },
    cookie: {
      type: 'string',
      pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$",
      description:
        "A cookie the token is also read from when no Authorization header is sent, on GET requests only (lists, reads, _groups, _events: a browser's EventSource sends no header); writes still need the header.",
    },
    securityScheme: { $ref: '#/definitions/securitySchemeName', description: "The OpenAPI security scheme of token checks (default 'bearerAuth', an http bearer JWT scheme)." },
  },
}

export const cors: JsonSchemaObject = {
  // Object keywords do not apply to a boolean: `true` passes, and an object gets precise errors (an unknown key at the key).
  type: ['boolean', 'object'],
  additionalProperties: false,
  required: ['origins'],
  description: 'CORS for browser front ends: true (any origin) or { origins, credentials?, maxAge? }.',
  properties: {
    origins: {
      description: "'*', or the exact origins allowed: scheme, host and port, no path ('https://app.example.com')",
      anyOf: [{ const: '*' }, { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: '^https?://[^/\\s?#]+$' } }],
    },
    credentials: { type: 'boolean', description: 'Whether browsers may send cookies and Authorization to the API (needs a list of origins).' },
    maxAge: { type: 'integer', minimum: 0, description: 'Seconds a browser may cache a preflight answer.' },
  },
}

export const rateLimit: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['max'],
  description: 'At most max requests per client address per timeWindow; past it, 429 with Retry-After.',
  properties: {
    max: { type: 'integer', minimum: 1 },
    timeWindow: {
      description: "milliseconds, or a duration such as '1 minute' or '30 s' (default '1 minute')",
      anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: DURATION_PATTERN }],
    },
  },
}

export const trustProxy: JsonSchemaObject = {
  description:
    "Fastify's trustProxy: whose X-Forwarded-For gives the client address (the rate limit's key, the logs): the proxies' addresses or CIDR ranges, or true (any sender: only when clients cannot reach the port directly)",
  anyOf: [{ type: 'boolean' }, { type: 'array', items: text, minItems: 1 }],
}

export const logLevel: JsonSchemaObject = {
  enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  description: "The logger's level (default warn); info logs every request and its answer. The command's --log-level wins.",
}
