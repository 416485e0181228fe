import { LIMIT_KEYS, type PlainRouterOptionKey } from '../options/router-option-schemas.js'

/**
 * Where the router options sit in a router of the API file. The file's JSON Schema
 * (api-file-schema.ts), its types (api-file.ts) and its translation into options
 * (to-router-options.ts) read these lists, and so does the check that points an option's problem at
 * the file's text.
 */

/** Plain options a router of the file takes under their own name, with their declaration. */
export const SHARED_ROUTER_KEYS = [
  'tags',
  'name',
  'singular',
  'identifierField',
  'indexes',
  'filterable',
  'sortable',
  'defaultSort',
  'notFoundStatus',
] as const satisfies readonly PlainRouterOptionKey[]

export type SharedRouterKey = (typeof SHARED_ROUTER_KEYS)[number]

/** Options the file says otherwise: their path in a router of the file. */
const MOVED: Readonly<Record<string, readonly string[]>> = {
  collectionName: ['collection'],
  filtersUnderScope: ['scope', 'filters'],
  clientIdsUnderScope: ['scope', 'clientIds'],
  filterDependency: ['scope'],
  ...Object.fromEntries(LIMIT_KEYS.map((key) => [key, ['limits', key]])),
}

/**
 * The path in a router of the file of an option's path (`['defaultLimit']` -> `['limits',
 * 'defaultLimit']`); relations keep their positions (the file's lists are the options' lists).
 */
export function filePathOf(optionPath: ReadonlyArray<string | number>): Array<string | number> {
  const [key, ...rest] = optionPath
  if (typeof key !== 'string') return []
  if (key.startsWith('disable')) return ['disable']
  if (key.startsWith('dependencies')) return ['guards']
  return [...(MOVED[key] ?? [key]), ...rest]
}
