import type { ApiFile } from '../api-file/api-file.js'
import { didYouMean } from '../did-you-mean.js'
import { UsageError } from './usage.js'

/**
 * The name of the file's router that `wanted` names: its name, or its prefix (with or without the
 * leading `/`). An unknown one is a UsageError suggesting the closest and listing the routers.
 */
export function findRouter(api: ApiFile, wanted: string): string {
  if (Object.hasOwn(api.routers, wanted)) return wanted
  const prefix = wanted.startsWith('/') ? wanted : `/${wanted}`
  const byPrefix = Object.entries(api.routers).find(([, router]) => router.prefix === prefix)
  if (byPrefix !== undefined) return byPrefix[0]
  const routers = Object.entries(api.routers)
  const known = routers.flatMap(([name, router]) => [name, router.prefix])
  const listed = routers.map(([name, router]) => `${name} (${router.prefix})`).join(', ') || 'none'
  throw new UsageError(`import: no router '${wanted}' in the API file (routers: ${listed})${didYouMean(wanted, known)}`)
}
