import { securityOf } from '../dependency.js'

/**
 * The OpenAPI `security` of a route: what the dependencies it runs (and the router's
 * `filterDependency`) declared with `securedBy`. Every one of them runs, so their schemes are all
 * required together: one requirement object. Undefined when none declared any.
 */
export function routeSecurity(dependencies: readonly unknown[]): Array<Record<string, string[]>> | undefined {
  const required: Record<string, string[]> = {}
  for (const dependency of dependencies) {
    for (const [scheme, scopes] of Object.entries(securityOf(dependency) ?? {})) {
      required[scheme] = [...new Set([...(required[scheme] ?? []), ...scopes])]
    }
  }
  return Object.keys(required).length === 0 ? undefined : [required]
}
