/**
 * Renders a value the way the server prints it in error messages (`dup key: { email: "a@b" }`),
 * so messages from the engine read like messages from mongod.
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value instanceof Date) return `new Date(${value.getTime()})`
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(', ')} ]`
  if (typeof value === 'object') {
    const bsonType = (value as { _bsontype?: unknown })._bsontype
    if (bsonType === 'ObjectId') return `ObjectId('${String(value)}')`
    if (typeof bsonType === 'string') return `${bsonType}(${String(value)})`
    const entries = Object.entries(value).map(([k, v]) => `${k}: ${formatValue(v)}`)
    return `{ ${entries.join(', ')} }`
  }
  return String(value)
}
