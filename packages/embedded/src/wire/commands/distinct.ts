import { compareBson } from '../../bson-order.js'
import { checkFieldPath } from '../../check-field-path.js'
import { toValueKey } from '../../value-key.js'
import { typeMismatch } from '../wire-error.js'
import { type CommandHandler, optionalDocument, refuseOptions, targetCollection } from './command-context.js'

/** distinct: the distinct values of `key` among the matches, array elements counted one by one, in BSON order. */
const distinct: CommandHandler = async (command, context) => {
  refuseOptions(command, ['collation'])
  const collection = targetCollection(command, 'distinct', context)
  const key = command['key']
  if (typeof key !== 'string' || key === '') throw typeMismatch("'key' must be a non-empty string")
  checkFieldPath(key)
  const seen = new Map<string, unknown>()
  for await (const doc of collection.find(optionalDocument(command, 'query') ?? {})) {
    for (const value of valuesAt(doc, key.split('.'))) {
      const id = toValueKey(value)
      if (!seen.has(id)) seen.set(id, value)
    }
  }
  return { values: [...seen.values()].sort(compareBson), ok: 1 }
}

function valuesAt(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(value) ? value : value === undefined ? [] : [value]
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, path))
  if (typeof value !== 'object' || value === null) return []
  return valuesAt((value as Record<string, unknown>)[path[0]!], path.slice(1))
}

export const DISTINCT_COMMANDS: Record<string, CommandHandler> = { distinct }
