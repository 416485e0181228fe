/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example'])

/**
 * A copy of a response schema without `required`, for the serializer only. A stored document may lack a
 * field the output model requires (written by another tool or an older model); it is served without it
 * and the fit reports it, where the serializer would throw and answer 500. OpenAPI keeps the original
 * schemas: `required` there documents what a document written through the API always has.
 */
export function withoutRequired(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutRequired)
  if (typeof schema !== 'object' || schema === null) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'required' && Array.isArray(value)) continue
    out[key] = DATA_KEYWORDS.has(key) ? value : key === 'properties' || key === 'patternProperties' ? mapValues(value) : withoutRequired(value)
  }
  return out
}

/** `properties` maps names to schemas: a property named `required` is a schema, kept and rewritten. */
function mapValues(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutRequired(sub)]))
}
