import { didYouMean } from '../did-you-mean.js'
import { UsageError } from './usage.js'

/**
 * Runs `parse` (a `util.parseArgs` of a subcommand's arguments, over `options`), its errors turned into
 * UsageErrors; an unknown option suggests the closest of `options` (`--prot`: did you mean '--port'?).
 */
export function withUsageErrors<T>(options: Readonly<Record<string, { type: 'string' | 'boolean', short?: string }>>, parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    const unknown = /^Unknown option '([^']+)'/.exec((error as Error).message)?.[1]
    if ((error as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || unknown === undefined) throw new UsageError((error as Error).message)
    const known = Object.entries(options).flatMap(([name, option]) => [`--${name}`, ...(option.short === undefined ? [] : [`-${option.short}`])])
    throw new UsageError(`unknown option '${unknown}'${didYouMean(unknown, known)}`)
  }
}
