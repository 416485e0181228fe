import type { Iterator } from 'mingo/lazy'
import type { Options } from 'mingo/types'
import { ensureArray, resolve } from 'mingo/util'
import { toMatchKey } from '../bson/value-key.js'

type Doc = Record<string, unknown>

/**
 * `$lookup` by `localField` and `foreignField` alone, joining as mingo's does (each element of an
 * array on either side; a missing local value finds the foreign documents whose value is null or
 * missing), but on values equal as MongoDB finds them: a Long, a Double and an int of one value join
 * (mingo hashes a Long apart from a number). Undefined for a `$lookup` with a pipeline or `let`, which
 * mingo runs (its equality on the join fields is then mingo's).
 */
export function lookupByValue(collection: Iterator, expr: Doc, options: Options): Iterator | undefined {
  const { from, localField, foreignField, as } = expr
  if (typeof localField !== 'string' || typeof foreignField !== 'string' || typeof as !== 'string') return undefined
  if (expr['pipeline'] !== undefined || expr['let'] !== undefined) return undefined
  const resolver = (options as { collectionResolver?: (name: string) => Doc[] }).collectionResolver
  const foreign = typeof from === 'string' ? resolver?.(from) : from
  if (!Array.isArray(foreign)) return undefined
  const matches = new Map<string, Doc[]>()
  for (const doc of foreign as Doc[]) {
    for (const value of ensureArray(resolve(doc, foreignField) ?? null)) {
      const key = toMatchKey(value)
      const found = matches.get(key)
      if (found === undefined) matches.set(key, [doc])
      else if (found.at(-1) !== doc) found.push(doc)
    }
  }
  return collection.map((obj) => {
    const local = resolve(obj as Doc, localField) ?? null
    if (!Array.isArray(local)) return { ...(obj as Doc), [as]: matches.get(toMatchKey(local)) ?? [] }
    const joined = new Set<Doc>()
    for (const value of local) for (const doc of matches.get(toMatchKey(value)) ?? []) joined.add(doc)
    return { ...(obj as Doc), [as]: [...joined] }
  })
}
