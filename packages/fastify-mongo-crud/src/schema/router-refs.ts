import type { TSchema } from 'typebox'
import type { ResolvedRouterOptions } from '../options.js'

/**
 * The models a router's schemas may name by `$ref` (`Type.Ref('NoteOut')`), by `$id`: the models of
 * its options (its own, its populates', lookups' and embeds'), which are the ones its serializer
 * resolves. A visible shape follows the same references, so a field typed by reference lets clients
 * filter and sort on exactly the fields the referenced model shows, where an unresolved reference
 * would accept any sub-path.
 */
export function routerRefs(options: ResolvedRouterOptions): ReadonlyMap<string, TSchema> {
  const models = [
    options.model,
    options.modelOut,
    ...[...options.populates, ...options.lookups, ...options.embeds].flatMap((relation) => [relation.model, relation.modelOut]),
  ]
  const refs = new Map<string, TSchema>()
  for (const model of models) {
    const id = (model as { $id?: string } | undefined)?.$id
    if (model !== undefined && id !== undefined && !refs.has(id)) refs.set(id, model)
  }
  return refs
}
