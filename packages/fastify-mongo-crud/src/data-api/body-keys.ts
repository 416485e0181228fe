import { didYouMean } from '../did-you-mean.js'
import type { ActionName } from './action-input.js'
import { invalidParameter } from './data-api-error.js'

const NAMESPACE = ['dataSource', 'database', 'collection'] as const

/** The keys each action reads besides the namespace. */
const KEYS: Readonly<Record<ActionName, readonly string[]>> = {
  findOne: ['filter', 'projection', 'sort'],
  find: ['filter', 'projection', 'sort', 'limit', 'skip'],
  insertOne: ['document'],
  insertMany: ['documents'],
  updateOne: ['filter', 'update', 'upsert'],
  updateMany: ['filter', 'update', 'upsert'],
  replaceOne: ['filter', 'replacement', 'upsert'],
  deleteOne: ['filter'],
  deleteMany: ['filter'],
  aggregate: ['pipeline'],
}

const EVERY_KEY: ReadonlySet<string> = new Set([...NAMESPACE, ...Object.values(KEYS).flat()])

/**
 * Refuses a key no action reads (a misspelt `filters`, `projecton`): 400 naming it, with the key it
 * most likely meant. Such a key was ignored by MongoDB, and a request that filtered nothing or
 * projected nothing answered more than its writer meant. A key another action reads (`limit` sent to
 * `findOne`) is ignored, as it was.
 */
export function refuseUnknownKeys(body: Readonly<Record<string, unknown>>, action: ActionName): void {
  for (const key of Object.keys(body)) {
    if (!EVERY_KEY.has(key)) throw invalidParameter(`unknown key '${key}' (${action} takes ${[...NAMESPACE, ...KEYS[action]].join(', ')})${didYouMean(key, [...NAMESPACE, ...KEYS[action]])}`)
  }
}
