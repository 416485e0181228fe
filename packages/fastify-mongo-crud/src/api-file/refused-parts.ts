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

/** Keys a router means nothing without. */
const REQUIRED = ['prefix', 'collection', 'model']

/** The router without its keys at fault; undefined when the router itself, or a key it needs, is. */
export function routerLeft(name: string, router: RouterDeclaration, refused: RefusedParts): RouterDeclaration | undefined {
  const keys = refused.routerKeys.get(name)
  if (keys === undefined) return router
  if (keys.has('') || REQUIRED.some((key) => keys.has(key))) return undefined
  return Object.fromEntries(Object.entries(router).filter(([key]) => !keys.has(key))) as unknown as RouterDeclaration
}
