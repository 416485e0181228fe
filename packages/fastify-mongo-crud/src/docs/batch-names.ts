import type { Naming } from './router-naming.js'

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1)
const words = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()

/**
 * A `_batch` route's operationId, summary and tags: `batchUsers` ("Write users in a batch"),
 * `batchUserMessages` ("Write the messages of one user in a batch"). Unique where the list's
 * operationId is: the same names, another verb.
 */
export function batchNames(tags: readonly string[], naming: Naming, parent?: Naming): { operationId: string, summary: string, tags: readonly string[] } {
  const operationId = `batch${parent === undefined ? capitalize(naming.plural) : capitalize(parent.singular) + capitalize(naming.plural)}`
  const summary = parent === undefined ? `Write ${words(naming.plural)} in a batch` : `Write the ${words(naming.plural)} of one ${words(parent.singular)} in a batch`
  return { operationId, summary, tags }
}
