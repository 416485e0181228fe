import { type Document, isPlainObject } from '../document.js'
import { badValueError } from '../errors.js'

/**
 * What the engine refuses under a non-simple collation, because it would compare strings without
 * it (mingo's own code, not the collated operators of collated-operators.ts): answering would
 * silently differ from the server.
 */

/** Expression operators and accumulators that compare or deduplicate values inside mingo. */
const UNCOLLATED_EXPRESSIONS = new Set([
  '$min',
  '$max',
  '$minN',
  '$maxN',
  '$top',
  '$topN',
  '$bottom',
  '$bottomN',
  '$addToSet',
  '$indexOfArray',
  '$setUnion',
  '$setIntersection',
  '$setDifference',
  '$setEquals',
  '$setIsSubset',
  '$sortArray',
])

/** Stages that group, join or sort inside mingo (or run a sub-pipeline the collation cannot reach). */
const UNCOLLATED_STAGES = new Set(['$bucket', '$bucketAuto', '$sortByCount', '$setWindowFields', '$lookup', '$graphLookup', '$unionWith', '$facet', '$densify', '$fill'])

/** The comparison expressions the collated operators answer (for pipeline-style updates, which run elsewhere). */
const COMPARISONS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$cmp', '$in'])

/** Update operators that compare a document's values with theirs. */
const COMPARING_UPDATES = new Set(['$pull', '$pullAll', '$addToSet', '$min', '$max'])

function refused(what: string): Error {
  return badValueError(`${what} with a non-simple collation is not supported by the embedded engine`)
}

/** Throws for a filter (or a `$match`) holding an expression the collation cannot reach. */
export function refuseUncollatedFilter(filter: unknown): void {
  const found = findKey(filter, UNCOLLATED_EXPRESSIONS)
  if (found !== undefined) throw refused(`'${found}'`)
}

/** Throws for an aggregation stage that would compare strings without the collation. */
export function refuseUncollatedStage(stage: Document, name: string): void {
  if (UNCOLLATED_STAGES.has(name)) throw refused(`the ${name} stage`)
  // Grouping by a constant (`_id: null`, to count or sum) compares no keys.
  if (name === '$group') {
    const id = (stage['$group'] as Document | undefined)?.['_id']
    if (id !== null && id !== undefined && (typeof id === 'object' || typeof id === 'string')) throw refused('$group by a computed _id')
  }
  refuseUncollatedFilter(stage)
}

/**
 * Throws for an update that would compare without the collation: arrayFilters, the positional `$`
 * and `$[id]` (matched by mingo), `$pull` / `$pullAll` / `$addToSet` / `$min` / `$max` with a string
 * in their argument, and pipeline-style updates that compare values.
 */
export function refuseUncollatedUpdate(update: Document | Document[], arrayFilters: Document[] | undefined): void {
  if (arrayFilters !== undefined && arrayFilters.length > 0) throw refused('arrayFilters')
  if (Array.isArray(update)) {
    const found = findKey(update, COMPARISONS) ?? findKey(update, UNCOLLATED_EXPRESSIONS)
    if (found !== undefined) throw refused(`'${found}' in a pipeline-style update`)
    return
  }
  for (const [op, fields] of Object.entries(update)) {
    if (typeof fields !== 'object' || fields === null) continue
    for (const [path, arg] of Object.entries(fields as Document)) {
      if (path.split('.').some((segment) => segment === '$' || (segment.startsWith('$[') && segment !== '$[]'))) throw refused(`the positional operator in '${path}'`)
      if (COMPARING_UPDATES.has(op) && containsString(arg)) throw refused(`${op} of a string`)
    }
  }
}

/** Whether a value holds a string anywhere (a filter without one matches the same under any collation). */
export function containsString(value: unknown): boolean {
  if (typeof value === 'string') return true
  if (Array.isArray(value)) return value.some(containsString)
  if (isPlainObject(value)) return Object.values(value).some(containsString)
  return false
}

function findKey(value: unknown, names: ReadonlySet<string>): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findKey(item, names)
      if (found !== undefined) return found
    }
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (names.has(key)) return key
      const found = findKey(item, names)
      if (found !== undefined) return found
    }
  }
  return undefined
}
