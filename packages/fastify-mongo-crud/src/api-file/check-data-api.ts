import { MIN_KEY_LENGTH } from '../data-api/data-api-options.js'
import type { ApiFile } from './api-file.js'
import type { Report } from './issue-reporter.js'

/**
 * What the JSON Schema cannot say about `dataApi`: a way to name callers (keys, or the tokens of
 * `auth`), a name per key, and a prefix no router has. `refusedTop`: the top-level keys the JSON
 * Schema refused, left out here.
 */
export function checkDataApi(file: ApiFile, refusedTop: ReadonlySet<string>, report: Report): void {
  const dataApi = file.dataApi
  if (dataApi === undefined || refusedTop.has('dataApi')) return
  if ((dataApi.keys ?? []).length === 0 && file.auth === undefined) {
    report('/dataApi', `'dataApi' needs 'keys' or 'auth': every Data API request names its caller (an apiKey header of ${MIN_KEY_LENGTH} characters or more, or a token)`)
  }
  const names = new Set<string>()
  dataApi.keys?.forEach((key, index) => {
    if (names.has(key.name)) report(`/dataApi/keys/${index}/name`, `'${key.name}' names two keys`)
    names.add(key.name)
  })
  const prefix = dataApi.prefix ?? `/app/${dataApi.appId ?? 'data-api'}/endpoint/data/v1`
  for (const [name, router] of Object.entries(file.routers)) {
    if (typeof router.prefix === 'string' && (router.prefix === prefix || prefix.startsWith(`${router.prefix}/`))) {
      report(dataApi.prefix === undefined ? '/dataApi' : '/dataApi/prefix', `the Data API's prefix ${prefix} is under the router '${name}' (${router.prefix}): give 'dataApi' a prefix of its own`)
    }
  }
}
