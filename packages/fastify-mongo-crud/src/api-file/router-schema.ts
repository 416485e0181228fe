import { LIMIT_KEYS, type PlainRouterOptionKey, RouterOptionSchemas } from '../options/router-option-schemas.js'
import { claimName, securitySchemeOfCheck } from './access-schemas.js'
import type { JsonSchemaObject } from './api-file.js'
import { SHARED_ROUTER_KEYS } from './file-router-keys.js'

/**
 * The JSON Schema of a router of the file. Its option keys are the router options' declarations
 * (router-option-schemas.ts), under the names file-router-keys.ts gives them; the rest (models by
 * name, hidden, guards, scope, relations) is the file's own.
 */

const ref = (name: string) => ({ $ref: `#/definitions/${name}` })

/** An option's declaration as JSON Schema: without `expects`, which only words registration's messages. */
function optionSchema(key: PlainRouterOptionKey, overrides: JsonSchemaObject = {}): JsonSchemaObject {
  const json = JSON.parse(JSON.stringify(RouterOptionSchemas[key], (name, value: unknown) => (name === 'expects' ? undefined : value))) as JsonSchemaObject
  return { ...json, ...overrides }
}

export const routerLimits: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(LIMIT_KEYS.map((key) => [key, optionSchema(key)])),
}

export const fieldList: JsonSchemaObject = { type: 'array', items: ref('fieldName'), uniqueItems: true }

const modelUse = {
  model: ref('modelName'),
  modelOut: { ...ref('modelName'), description: 'Output model: only its fields appear in responses.' },
  hidden: { ...ref('fieldList'), description: 'Fields of the model never shown (instead of a modelOut).' },
}

const scope: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['field'],
  description:
    "a row scope: every route only reaches documents whose field equals a header's value ({ field, header }: set by a gateway you trust) or a claim of the verified token ({ field, claim })",
  anyOf: [{ required: ['header'] }, { required: ['claim'] }],
  properties: {
    field: ref('fieldName'),
    header: { ...ref('header'), description: 'A header a gateway in front of the API sets: its value is trusted as it arrives.' },
    claim: claimName,
    detail: { type: 'string', minLength: 1, description: "The refusal's detail when the header is missing or invalid (401), or the claim is (403)." },
    filters: optionSchema('filtersUnderScope', {
      description:
        "Client filters on the list, _groups and _events: 'and' (default) ANDs them with the scope, so they narrow it and are checked by the filter grammar; 'ignore' answers the scope whatever they say (the Python original's rule, and the router option's default in code).",
    }),
    clientIds: optionSchema('clientIdsUnderScope', {
      description: "Whether a create may choose the document's id: refused (default), since an id taken in another scope would be told apart from a free one; or allowed.",
    }),
    securityScheme: securitySchemeOfCheck,
  },
}

/** A role's right to one operation: all documents, none, or those a filter matches. */
const accessGrant = (op: string): JsonSchemaObject => ({
  description: `${op}: true (every document), false (none: 403, the default) or a filter in the closed grammar whose values may be { "$claim": "<name>" } or { "$header": "<name>" }`,
  anyOf: [{ type: 'boolean' }, { type: 'object' }],
})

const access: JsonSchemaObject = {
  type: 'array',
  minItems: 1,
  description: 'Who may read, create, update and delete what, and see which fields: an ordered list of roles, the first whose when holds applying (none: 403, or 401 without credentials).',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['role'],
    properties: {
      role: { type: 'string', minLength: 1, description: 'The role\'s name.' },
      when: {
        type: 'object',
        additionalProperties: false,
        description: "When the role applies: { claim, equals? } (a claim of the token 'auth' verified) or { header, equals? } (a header a trusted gateway sets); without equals, present and non-empty. Absent: always.",
        anyOf: [{ required: ['claim'] }, { required: ['header'] }],
        properties: {
          claim: claimName,
          header: ref('header'),
          equals: { description: 'a value, or a list of accepted values', anyOf: [{ type: ['string', 'number', 'boolean'] }, { type: 'array', items: { type: ['string', 'number', 'boolean'] }, minItems: 1 }] },
        },
      },
      read: accessGrant('read'),
      create: accessGrant('create'),
      update: accessGrant('update'),
      delete: accessGrant('delete'),
      hiddenFields: { ...ref('fieldList'), description: 'Top-level fields this role never sees, beyond the output model.' },
      readOnlyFields: { ...ref('fieldList'), description: 'Top-level fields this role may not set.' },
    },
  },
}

const relations: JsonSchemaObject = {
  populates: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['field', 'router'],
      description: "Replaces the ids of 'field' by the documents of the named router's collection, shaped by its output model.",
      properties: { field: ref('fieldName'), router: { type: 'string' } },
    },
  },
  lookups: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['prefix', 'collection', 'model', 'foreignField'],
      description: 'Child routes <prefix>/{id}/<lookup prefix> over a second collection.',
      properties: {
        prefix: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
        collection: optionSchema('collectionName', { description: 'The collection of the children.' }),
        ...modelUse,
        localField: { type: 'string', description: "Field of the parent the children point at (default '_id')." },
        foreignField: ref('fieldName'),
        disable: ref('disable'),
        guards: ref('guards'),
      },
    },
  },
  embeds: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'model'],
      description: 'Child routes <prefix>/{id}/<name> over an array stored in the parent.',
      properties: { name: ref('fieldName'), ...modelUse, disable: ref('disable'), guards: ref('guards') },
    },
  },
}

export const router: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['prefix', 'collection', 'model'],
  properties: {
    prefix: { type: 'string', pattern: '^(/[A-Za-z0-9._~-]+)+$', description: "The routes' path prefix, e.g. /api/users." },
    collection: optionSchema('collectionName'),
    ...modelUse,
    ...Object.fromEntries(SHARED_ROUTER_KEYS.map((key) => [key, optionSchema(key)])),
    disable: ref('routerDisable'),
    guards: ref('guards'),
    scope,
    access,
    limits: ref('routerLimits'),
    ...relations,
  },
}
