import type { JsonSchemaObject } from './api-file.js'
import type { Report } from './issue-reporter.js'
import { escapePointer } from './parse-json-positions.js'

/** Requirements that name undeclared fields, and patterns that are not regular expressions, anywhere in a model. */
export function checkModelSchema(schema: JsonSchemaObject, pointer: string, report: Report): void {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchemaObject>
  const required = schema['required']
  if (Array.isArray(required)) {
    required.forEach((name: string, index) => {
      if (!Object.hasOwn(properties, name)) report(`${pointer}/required/${index}`, `required field '${name}' is not declared in 'properties'`)
    })
  }
  const pattern = schema['pattern']
  if (typeof pattern === 'string') {
    try {
      new RegExp(pattern, 'u')
    } catch (error) {
      report(`${pointer}/pattern`, `pattern is not a valid regular expression: ${(error as Error).message}`)
    }
  }
  for (const [name, sub] of Object.entries(properties)) checkModelSchema(sub, `${pointer}/properties/${escapePointer(name)}`, report)
  if (typeof schema['items'] === 'object') checkModelSchema(schema['items'] as JsonSchemaObject, `${pointer}/items`, report)
  if (typeof schema['additionalProperties'] === 'object') checkModelSchema(schema['additionalProperties'] as JsonSchemaObject, `${pointer}/additionalProperties`, report)
  const anyOf = schema['anyOf']
  if (Array.isArray(anyOf)) {
    anyOf.forEach((sub: JsonSchemaObject, index) => {
      checkModelSchema(sub, `${pointer}/anyOf/${index}`, report)
    })
  }
}
