import type { FastifyRequest } from 'fastify'
import type { TSchema } from 'typebox'
import { invalidQuery } from '../errors.js'
import { buildShape } from '../shapes/model-shape.js'
import { checkClientPath } from './check-client-path.js'

/** The fields each request asked for with `fields=`, so the output fit does not report the others missing. */
const selections = new WeakMap<FastifyRequest, ReadonlySet<string>>()

const NONE: ReadonlySet<string> = new Set()

/**
 * Reads `fields=name,email` against an output model, once per router: only the model's top-level fields
 * may be named, so a hidden field (not in the output model, or one the caller's role does not see:
 * `hidden`) is refused exactly as an unknown one is, and the answer never tells the two apart. `id`
 * always comes back, named or not. Without `fields=`, a role that does not see some fields reads the
 * others: they are what it selects.
 */
export function fieldSelector(outModel: TSchema): (request: FastifyRequest, raw: string | undefined, hidden?: ReadonlySet<string>) => string[] | undefined {
  const shape = buildShape(outModel)
  // Shapes name the identifier `_id`; clients name it `id`.
  const shown = new Set(['id', ...(shape.kind === 'object' ? [...shape.fields.keys()].filter((name) => name !== '_id') : [])])
  return (request, raw, hidden = NONE) => {
    if (raw === undefined) {
      if (hidden.size === 0) return undefined
      const seen = [...shown].filter((name) => !hidden.has(name))
      selections.set(request, new Set(seen))
      return seen
    }
    const names = raw.split(',').map((name) => name.trim())
    if (names.every((name) => name === '')) throw invalidQuery('fields must name at least one field')
    const selected = new Set<string>(['id'])
    for (const name of names) {
      if (name === '') continue
      checkClientPath('fields', name)
      if (!shown.has(name) || hidden.has(name)) throw invalidQuery(`fields: "${name}" is not a field of the output model`)
      selected.add(name)
    }
    selections.set(request, selected)
    return [...selected]
  }
}

/** The fields a request selected with `fields=`; undefined when it answers whole documents. */
export function selectedFields(request: FastifyRequest): ReadonlySet<string> | undefined {
  return selections.get(request)
}

/** Fields the caller's role does not see, per request (core/router-context.ts): never read, so their absence is no misfit either. */
const withheld = new WeakMap<FastifyRequest, ReadonlySet<string>>()

export function withholdFields(request: FastifyRequest, hidden: ReadonlySet<string>): void {
  if (hidden.size === 0) return
  // A request that populates from another router is decided there too: its roles' fields add up.
  const before = withheld.get(request)
  withheld.set(request, before === undefined ? hidden : new Set([...before, ...hidden]))
}

/** The fields withheld from the request's caller; undefined when none are. */
export function withheldFields(request: FastifyRequest): ReadonlySet<string> | undefined {
  return withheld.get(request)
}
