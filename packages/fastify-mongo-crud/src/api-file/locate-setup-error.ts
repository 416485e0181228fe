import type { SetupError } from '../errors.js'
import type { RouterDeclaration } from './api-file.js'
import type { ApiFileIssue } from './api-file-error.js'
import { filePathOf } from './file-router-keys.js'
import { escapePointer, type Located } from './parse-json-positions.js'

/**
 * What the library refused while a router of the file registered (a SetupError), as an issue at the
 * place in the file its message names: the option in quotes after `CRUDRouter:` (`'defaultSort.field'`,
 * `'indexes[0]'.key`), the lookup, embed or populate it names, else the router itself.
 */
export function locateSetupError(error: SetupError, router: RouterDeclaration | undefined, routerPointer: string, positions: ReadonlyMap<string, Located>): ApiFileIssue {
  const path = router === undefined ? [] : pathIn(error.message, router)
  // The deepest place of that path the file has (a default value has none: its router's place then).
  let pointer = routerPointer
  for (let depth = path.length; depth > 0; depth--) {
    const candidate = `${routerPointer}${path.slice(0, depth).map((segment) => `/${escapePointer(segment)}`).join('')}`
    if (positions.has(candidate)) {
      pointer = candidate
      break
    }
  }
  const located = positions.get(pointer)
  // A router is shown at its name, an option at its value.
  const position = (pointer === routerPointer ? located?.key : undefined) ?? located?.value ?? { line: 1, column: 1 }
  return { ...position, pointer, message: `${error.message} (${error.code})` }
}

/** The path in the router of the file that a SetupError's message names, as far as it says. */
function pathIn(message: string, router: RouterDeclaration): Array<string | number> {
  const child = /^CRUD(Lookup|Embed) '([^']+)'(?: of [^:]*)?: (?:'(\w+)')?/.exec(message)
  if (child !== null) {
    const [, kind, name, key] = child
    const list = kind === 'Lookup' ? 'lookups' : 'embeds'
    const index = kind === 'Lookup' ? router.lookups?.findIndex((lookup) => lookup.prefix === name) : router.embeds?.findIndex((embed) => embed.name === name)
    if (index === undefined || index < 0) return [list]
    return key === undefined ? [list, index] : [list, index, key]
  }
  const populate = /populate (?:field |of )'([^']+)'/.exec(message)
  if (populate !== null) {
    const index = router.populates?.findIndex((entry) => entry.field === populate[1]) ?? -1
    return index < 0 ? ['populates'] : ['populates', index, 'field']
  }
  if (/: modelOut \S+ does not fit/.test(message)) return [router.modelOut === undefined ? 'hidden' : 'modelOut']
  const option = /^CRUDRouter(?: '[^']*')?: '(\w+)(?:\[(\d+)\])?((?:\.\w+)*)'((?:\.\w+)*)/.exec(message)
  if (option === null) return []
  const [, key, index, inside, after] = option
  const rest = `${inside}${after}`.split('.').filter((segment) => segment !== '')
  return filePathOf([key!, ...(index === undefined ? [] : [Number(index)]), ...rest])
}
