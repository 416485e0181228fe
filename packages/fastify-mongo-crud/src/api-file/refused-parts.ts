import { isRecord } from '../is-record.js'
import type { RouterDeclaration } from './api-file.js'
import type { ApiFileIssue } from './api-file-error.js'
import { pointerSegments } from './parse-json-positions.js'

/**
 * The parts of a file that earlier checks found at fault: later checks leave them out (a value the
 * JSON Schema refused may not have the shape they read; an option already reported would only be
 * reported again), so that one run still reports the problems of every other part.
 */
export interface RefusedParts {
  /** The file's structure itself (no `models` or `routers` object): nothing more can be checked. */
  readonly all: boolean
  readonly models: ReadonlySet<string>
  /** The keys at fault of each router, by router name; `''` when the router itself is. */
  readonly routerKeys: ReadonlyMap<string, ReadonlySet<string>>
  /** Top-level keys with a problem (`openapi`, `database`, `limits`...). */
  readonly top: ReadonlySet<string>
}

export const NOTHING_REFUSED: RefusedParts = { all: false, models: new Set(), routerKeys: new Map(), top: new Set() }

export function refusedParts(issues: readonly ApiFileIssue[]): RefusedParts {
  let all = false
  const models = new Set<string>()
  const routerKeys = new Map<string, Set<string>>()
  const top = new Set<string>()
  for (const { pointer } of issues) {
    const [key, name, inside = ''] = pointerSegments(pointer)
    if (key === undefined || ((key === 'models' || key === 'routers') && name === undefined)) all = true
    else if (key === 'models') models.add(name!)
    else if (key === 'routers') routerKeys.set(name!, new Set([...(routerKeys.get(name!) ?? []), inside]))
    else top.add(key)
  }
  return { all, models, routerKeys, top }
}

/** Keys a router cannot be registered without. */
const REQUIRED = ['prefix', 'collection', 'model']

/**
 * The router without its keys at fault, for the checks of what it names (a model, fields, routers):
 * they need no other key, so a router lacking `collection` still has its misspelt model and fields
 * reported in the same run. Undefined when the router is not an object.
 */
export function routerToCheck(name: string, router: RouterDeclaration, refused: RefusedParts): RouterDeclaration | undefined {
  if (!isRecord(router)) return undefined
  const keys = refused.routerKeys.get(name)
  if (keys === undefined) return router
  return Object.fromEntries(Object.entries(router).filter(([key]) => !keys.has(key))) as unknown as RouterDeclaration
}

/** The router without its keys at fault, for registration; undefined when the router itself, or a key it needs, is at fault or missing. */
export function routerLeft(name: string, router: RouterDeclaration, refused: RefusedParts): RouterDeclaration | undefined {
  if (refused.routerKeys.get(name)?.has('')) return undefined
  const left = routerToCheck(name, router, refused)
  return left === undefined || REQUIRED.some((key) => !Object.hasOwn(left, key)) ? undefined : left
}
