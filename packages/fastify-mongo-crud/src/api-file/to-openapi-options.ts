import type { OpenAPIDocsOptions, SecurityScheme } from '../docs/register-docs.js'
import type { ApiFile, Guards, HeaderGuard, HeaderScope } from './api-file.js'
import { authSchemeName } from './bearer-auth.js'

/**
 * The security scheme a guard or a scope enforces: the one it names, else the one named after its
 * header (lower case; characters a component name cannot hold become `_`), so that every header check
 * of a file shows in the OpenAPI document even when the file declares no scheme.
 */
export function schemeNameOf(access: HeaderGuard | HeaderScope): string {
  return access.securityScheme ?? derivedSchemeName(access.header)
}

/** Two headers that differ only in such characters get one name: check-api-file.ts refuses that. */
export const derivedSchemeName = (header: string) => header.toLowerCase().replace(/[^a-z0-9._-]/g, '_')

/**
 * createApp's `openapi` option: the file's `openapi`, its `securitySchemes` completed by an apiKey
 * scheme in the header for each header guard or scope that names none, and with `auth`, an http bearer
 * JWT scheme (`bearerAuth`) for the token checks (unless the file declares a scheme of that name: then
 * that one documents them).
 */
export function toOpenApiOptions(api: ApiFile): OpenAPIDocsOptions {
  const declared = api.openapi?.securitySchemes ?? {}
  const derived: Record<string, SecurityScheme> = {}
  if (api.auth !== undefined && !Object.hasOwn(declared, authSchemeName(api.auth))) {
    derived[authSchemeName(api.auth)] = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }
  }
  for (const access of accessChecks(api)) {
    if (access.securityScheme !== undefined) continue
    const name = derivedSchemeName(access.header)
    if (!Object.hasOwn(declared, name) && !Object.hasOwn(derived, name)) derived[name] = { type: 'apiKey', in: 'header', name: access.header.toLowerCase() }
  }
  const securitySchemes = { ...declared, ...derived }
  return { ...api.openapi, ...(Object.keys(securitySchemes).length === 0 ? {} : { securitySchemes }) }
}

/** Every header guard and header scope of the file, in file order. */
export function* accessChecks(api: ApiFile): Generator<HeaderGuard | HeaderScope> {
  const guardsOf = (guards: Guards | undefined) => Object.values(guards ?? {}).flatMap((list) => list.filter((guard) => guard.claim === undefined))
  for (const router of Object.values(api.routers)) {
    if (router.scope !== undefined && router.scope.claim === undefined) yield router.scope
    yield* guardsOf(router.guards)
    for (const child of [...(router.lookups ?? []), ...(router.embeds ?? [])]) yield* guardsOf(child.guards)
  }
}
