import type { Document } from '../../document.js'
import type { EmbeddedCollection } from '../../embedded-collection.js'
import { isNumericObject } from '../../numbers/numeric-type.js'
import { badValue, indexNotFound, namespaceNotFound, typeMismatch } from '../wire-error.js'
import { type CommandContext, type CommandHandler, requiredArray, targetCollection } from './command-context.js'
import { firstBatch } from './find.js'

/** Index options the engine honours; any other (sparse, partial, TTL, text...) is refused. */
const SUPPORTED_OPTIONS = new Set(['key', 'name', 'unique', 'v', 'background'])

const createIndexes: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'createIndexes', context)
  const existed = exists(collection, context)
  const before = (await collection.listIndexes().toArray()).length
  for (const spec of requiredArray(command, 'indexes')) {
    if (typeof spec !== 'object' || spec === null) throw typeMismatch('each index specification must be an object')
    const unsupported = Object.keys(spec).filter((key) => !SUPPORTED_OPTIONS.has(key))
    if (unsupported.length > 0) throw badValue(`index option(s) ${unsupported.join(', ')} not supported by the embedded engine`)
    const options: { unique?: boolean, name?: string } = { unique: spec['unique'] === true }
    if (typeof spec['name'] === 'string') options.name = spec['name']
    await collection.createIndex(directionsOf(spec['key']), options)
  }
  const after = (await collection.listIndexes().toArray()).length
  if (!existed) await context.db.createCollection(collection.collectionName)
  const reply: Document = { numIndexesBefore: before, numIndexesAfter: after, createdCollectionAutomatically: !existed, ok: 1 }
  if (after === before) reply['note'] = 'all indexes already exist'
  return reply
}

/** An index key's directions as numbers: a client may send `{ a: NumberLong(1) }` or `{ a: 1.0 }`, which the engine keeps as sent. */
function directionsOf(key: unknown): Record<string, 1 | -1> {
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return key as Record<string, 1 | -1>
  return Object.fromEntries(Object.entries(key).map(([field, direction]) => [field, isNumericObject(direction) ? Number(direction) : direction])) as Record<string, 1 | -1>
}

const listIndexes: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'listIndexes', context)
  if (!exists(collection, context)) throw namespaceNotFound(`ns does not exist: ${context.dbName}.${collection.collectionName}`)
  return firstBatch(context, `${context.dbName}.${collection.collectionName}`, collection.listIndexes(), command)
}

const dropIndexes: CommandHandler = async (command, context) => {
  const collection = targetCollection(command, 'dropIndexes', context)
  if (!exists(collection, context)) throw namespaceNotFound(`ns not found ${context.dbName}.${collection.collectionName}`)
  const indexes = (await collection.listIndexes().toArray()) as { name: string, key: Document }[]
  const names = toIndexNames(command['index'], indexes)
  for (const name of names) {
    if (!(await collection.dropIndex(name))) throw indexNotFound(`index not found with name [${name}]`)
  }
  return { nIndexesWas: indexes.length, ok: 1 }
}

/** `index` may be a name, `*`, a list of names, or a key pattern. */
function toIndexNames(index: unknown, indexes: { name: string, key: Document }[]): string[] {
  if (typeof index === 'string') return [index]
  if (Array.isArray(index) && index.every((name) => typeof name === 'string')) return index
  if (typeof index === 'object' && index !== null) {
    const found = indexes.find((spec) => JSON.stringify(Object.entries(spec.key)) === JSON.stringify(Object.entries(index)))
    if (!found) throw indexNotFound(`can't find index with key: ${JSON.stringify(index)}`)
    return [found.name]
  }
  throw typeMismatch("'index' must be a name, '*', a list of names or a key pattern")
}

function exists(collection: EmbeddedCollection, context: CommandContext): boolean {
  return context.db.listCollectionNames().includes(collection.collectionName)
}

export const INDEX_COMMANDS: Record<string, CommandHandler> = { createIndexes, listIndexes, dropIndexes }
