import { Query } from 'mingo/query'
import type { Document } from '../document.js'
import { badValueError } from '../errors.js'
import { MINGO_OPTIONS } from '../operators/mingo-options.js'

/**
 * Rewrites positional update paths (`a.$.x`, `a.$[].x`, `a.$[id].x`) into concrete index paths
 * (`a.2.x`), resolved once against the document *before* the update, as the server does.
 *
 * mingo resolves positions itself, but treats two paths under one array (`items.$[e].label`
 * and `items.$[e].qty`, the router's patch of an embedded item) as a conflict, and accepts only
 * one query field for `$`. With concrete paths it only ever sees plain dotted paths.
 * A positional path that matches no element is dropped (a no-op, as on the server).
 */
export function expandPositional(doc: Document, modifier: Document, filter: Document, arrayFilters: Document[] | undefined): Document {
  const filters = compileArrayFilters(arrayFilters ?? [])
  const expanded: Document = {}
  for (const [op, fields] of Object.entries(modifier)) {
    const concrete: Document = {}
    for (const [path, value] of Object.entries(fields as Document)) {
      if (!path.includes('$')) {
        concrete[path] = value
        continue
      }
      for (const target of expand(doc, path.split('.'), filter, filters)) concrete[target] = value
    }
    if (Object.keys(concrete).length > 0) expanded[op] = concrete
  }
  return expanded
}

function expand(doc: Document, segments: string[], filter: Document, filters: Map<string, Query>): string[] {
  const results: string[] = []
  const walk = (value: unknown, i: number, prefix: string[]): void => {
    if (i === segments.length) {
      results.push(prefix.join('.'))
      return
    }
    const segment = segments[i]!
    if (segment === '$') {
      const index = positionalIndex(doc, prefix.join('.'), value, filter)
      walk((value as unknown[])[index], i + 1, [...prefix, String(index)])
    } else if (segment.startsWith('$[') && segment.endsWith(']')) {
      if (!Array.isArray(value)) return
      const id = segment.slice(2, -1)
      const query = id === '' ? undefined : filters.get(id)
      value.forEach((element, index) => {
        if (!query || query.test({ [id]: element })) walk(element, i + 1, [...prefix, String(index)])
      })
    } else {
      const child = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[segment] : undefined
      walk(child, i + 1, [...prefix, segment])
    }
  }
  walk(doc, 0, [])
  return results
}

/** The index of the first element of the array at `field` that satisfies the filter's conditions on it. */
function positionalIndex(doc: Document, field: string, array: unknown, filter: Document): number {
  const conditions = Object.entries(filter).filter(([k]) => k === field || k.startsWith(`${field}.`))
  if (Array.isArray(array) && conditions.length > 0) {
    const query = new Query(Object.fromEntries(conditions), MINGO_OPTIONS)
    const index = array.findIndex((element) => query.test(nest(field, [element])))
    if (index >= 0) return index
  }
  throw badValueError(`The positional operator did not find the match needed from the query. (document _id ${String(doc['_id'])})`)
}

/** `nest('a.b', v)` is `{ a: { b: v } }`: a document holding only that one array. */
function nest(path: string, value: unknown): Document {
  return path.split('.').reduceRight<Document>((inner, key) => ({ [key]: inner }), value as Document)
}

function compileArrayFilters(arrayFilters: Document[]): Map<string, Query> {
  const grouped = new Map<string, Document>()
  for (const filter of arrayFilters) {
    for (const [key, condition] of Object.entries(filter)) {
      const id = key.split('.')[0]!
      grouped.set(id, { ...grouped.get(id), [key]: condition })
    }
  }
  return new Map([...grouped].map(([id, conditions]) => [id, new Query(conditions, MINGO_OPTIONS)]))
}
