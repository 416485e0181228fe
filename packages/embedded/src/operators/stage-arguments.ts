import type { Iterator } from 'mingo/lazy'
import * as mingo from 'mingo/operators/pipeline'
import type { Options } from 'mingo/types'
import { isPlainObject } from '../document.js'
import { exactDouble } from '../numbers/numeric-key.js'
import { isNumericObject } from '../numbers/numeric-type.js'

type Stage = (collection: Iterator, expr: unknown, options: Options) => Iterator

/**
 * The stages whose specification holds counts or flags (`$limit: 5`, `$project: { a: 0 }`,
 * `$sort: { a: -1 }`): a client may send them as a Long or a double (`0.0`), which the engine keeps
 * as such (numeric-type.ts) and mingo would misread (a `Double` projected as a value to set instead
 * of a flag). They get those numbers as the JS numbers of their values, as MongoDB reads them by
 * value. A projection's expressions (`{ a: { $literal: NumberLong(5) } }`) are left as they are.
 * (A `$sort` here is one inside a sub-pipeline: top-level ones are the engine's, aggregate-documents.ts.)
 */
export const NUMBER_ARGUMENT_STAGES: Record<string, Stage> = {
  $limit: (collection, expr, options) => mingo.$limit(collection, plain(expr) as number, options),
  $skip: (collection, expr, options) => mingo.$skip(collection, plain(expr) as number, options),
  $sample: (collection, expr, options) => mingo.$sample(collection, (isPlainObject(expr) ? { ...expr, size: plain(expr['size']) } : expr) as { size: number }, options) as Iterator,
  $sort: (collection, expr, options) => mingo.$sort(collection, flags(expr) as Parameters<typeof mingo.$sort>[1], options),
  $project: (collection, expr, options) => mingo.$project(collection, flags(expr) as Parameters<typeof mingo.$project>[1], options),
}

function plain(value: unknown): unknown {
  return isNumericObject(value) ? (exactDouble(value) ?? Number(value)) : value
}

/** A specification's flags as numbers, through nested field documents but not into an operator's expression. */
function flags(spec: unknown): unknown {
  if (!isPlainObject(spec) || Object.keys(spec).some((key) => key.startsWith('$'))) return spec
  let out: Record<string, unknown> | undefined
  for (const [field, value] of Object.entries(spec)) {
    const flag = isNumericObject(value) ? plain(value) : flags(value)
    if (flag === value) continue
    out ??= { ...spec }
    Object.defineProperty(out, field, { value: flag, writable: true, enumerable: true, configurable: true })
  }
  return out ?? spec
}
