import { IDENTIFIER_PATTERN } from '../options/router-option-schemas.js'
import type { JsonSchemaObject } from './api-file.js'

/** The JSON Schema of the file's models: the subset of JSON Schema that models support. */

const ref = (name: string) => ({ $ref: `#/definitions/${name}` })
const names = { pattern: IDENTIFIER_PATTERN }
const count = { type: 'integer', minimum: 0 }
const requiredList = { type: 'array', items: { type: 'string' }, uniqueItems: true }

export const modelName: JsonSchemaObject = { type: 'string', pattern: IDENTIFIER_PATTERN, description: "The name of a model of 'models'." }

export const fieldName: JsonSchemaObject = { type: 'string', pattern: IDENTIFIER_PATTERN }

export const typeName: JsonSchemaObject = { enum: ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] }

export const model: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'properties'],
  description: "A model: a JSON Schema object. 'id' is added (an ObjectId); unknown keys are refused.",
  properties: {
    type: { const: 'object' },
    title: { type: 'string' },
    description: { type: 'string' },
    properties: { type: 'object', propertyNames: names, additionalProperties: ref('field') },
    required: requiredList,
    additionalProperties: { const: false, description: 'Models are closed: unknown body keys are refused.' },
  },
}

const FORMATS = ['objectid', 'date-time', 'date', 'time', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'uuid', 'regex']

export const field: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  description: 'A field: the subset of JSON Schema that models support. `format: objectid` marks a reference (a 24-hex id).',
  properties: {
    type: {
      description: 'a type name, or a list of type names',
      anyOf: [ref('typeName'), { type: 'array', items: ref('typeName'), minItems: 1, uniqueItems: true }],
    },
    title: { type: 'string' },
    description: { type: 'string' },
    default: {},
    examples: { type: 'array' },
    enum: { type: 'array', minItems: 1 },
    const: {},
    format: { enum: FORMATS },
    pattern: { type: 'string' },
    minLength: count,
    maxLength: count,
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    exclusiveMinimum: { type: 'number' },
    exclusiveMaximum: { type: 'number' },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    items: ref('field'),
    minItems: count,
    maxItems: count,
    uniqueItems: { type: 'boolean' },
    properties: { type: 'object', propertyNames: names, additionalProperties: ref('field') },
    required: requiredList,
    additionalProperties: { description: 'false, true, or the schema of every other key', anyOf: [{ type: 'boolean' }, ref('field')] },
    anyOf: { type: 'array', minItems: 1, items: ref('field') },
  },
}
