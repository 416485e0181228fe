/** A non-null object that is not an array: a JSON object, a schema node, a document (any prototype). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
