import type { JsonSchemaObject } from './api-file.js'

/** The JSON Schema of the file's `openapi`: createApp's `openapi` option. */

const text = { type: 'string', minLength: 1 }
const schemeNames = { $ref: '#/definitions/securitySchemeName' }
const named = (description: string) => ({
  type: 'array',
  description,
  items: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: text, description: { type: 'string' } } },
})

export const openapi: JsonSchemaObject = {
  type: 'object',
  additionalProperties: false,
  description: 'The rest of the OpenAPI document (createApp\'s openapi option): license, contact, servers, tag descriptions, security schemes.',
  properties: {
    license: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      description: "The API's license in info.license.",
      properties: { name: text, url: text, identifier: { ...text, description: 'An SPDX identifier, e.g. MIT.' } },
    },
    contact: {
      type: 'object',
      additionalProperties: false,
      description: 'Who to contact about the API, in info.contact.',
      properties: { name: { type: 'string' }, url: { type: 'string' }, email: { type: 'string' } },
    },
    servers: {
      type: 'array',
      description: 'Where the API is served (default [{ "url": "/" }]: the host serving the document).',
      items: { type: 'object', additionalProperties: false, required: ['url'], properties: { url: text, description: { type: 'string' } } },
    },
    tags: named("Descriptions of the routers' tags, in the order the docs list them."),
    securitySchemes: {
      type: 'object',
      description: "Security schemes by name, which guards and scopes name in 'securityScheme'.",
      propertyNames: schemeNames,
      additionalProperties: { $ref: '#/definitions/securityScheme' },
    },
    security: {
      type: 'array',
      description: 'What every operation requires (default []: only the routes guards and scopes check need a scheme).',
      items: { type: 'object', propertyNames: schemeNames, additionalProperties: { type: 'array', items: { type: 'string' } } },
    },
  },
}
