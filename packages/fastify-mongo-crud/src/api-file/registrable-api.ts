import type { ApiFile, ModelUse, RouterDeclaration } from './api-file.js'
import { type RefusedParts, routerLeft } from './refused-parts.js'

/**
 * The part of a file that registration can still be tried on, given the parts found at fault so far:
 * routers without their keys at fault (a misspelt index, an unknown hidden field...), so that their
 * other options are still checked; without a router whose name, required keys or models are at fault;
 * without relations to a model at fault or to a router left out, and without a top-level key at fault
 * (`openapi`, `limits`, `cors`...).
 */
export function registrableApi(api: ApiFile, refused: RefusedParts): ApiFile {
  const usesRefused = (use: ModelUse) => [use.model, use.modelOut].some((model) => model !== undefined && refused.models.has(model))
  const routers: Record<string, RouterDeclaration> = {}
  for (const [name, declared] of Object.entries(api.routers)) {
    const router = routerLeft(name, declared, refused)
    if (router === undefined || usesRefused(router)) continue
    const { lookups, embeds, ...rest } = router
    routers[name] = {
      ...rest,
      ...(lookups === undefined || lookups.some(usesRefused) ? {} : { lookups }),
      ...(embeds === undefined || embeds.some(usesRefused) ? {} : { embeds }),
    }
  }
  for (const [name, router] of Object.entries(routers)) {
    const { populates, ...rest } = router
    if (populates?.some((populate) => !Object.hasOwn(routers, populate.router))) routers[name] = rest
  }
  // Top-level keys at fault (`openapi`, `limits`, `cors`...) are left out; `models` and `routers` were filtered above.
  const kept = Object.fromEntries(Object.entries(api).filter(([key]) => !refused.top.has(key)))
  return { ...kept, models: api.models, routers } as ApiFile
}
