import { parseArgs } from 'node:util'
import type { LogLevel } from '../api-file/api-file.js'
import { withUsageErrors } from './parse-options.js'
import { UsageError } from './usage.js'

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export interface ServeCommand {
  command: 'serve' | 'check'
  file: string
  /** `--port`, else PORT, else 8000; 0 picks a free port. */
  port: number
  /** `--host`, else HOST, else 127.0.0.1. */
  host: string
  /** `--data`: the embedded engine's data directory, relative to the working directory. */
  data: string | undefined
  /** FMC_SECRET: what every router seals its page cursors and keys its ETags with (default: random per process). */
  secret?: string
  /** `--log-level`: the logger's level, over the file's `logLevel`. */
  logLevel?: LogLevel
  /** `--admin`: serve the admin page at /admin (as the file's `"admin": true`). */
  admin?: boolean
}

type ServeOrHelp = ServeCommand | { command: 'help' }

// Where programs and tests have always imported it from; usage.ts is where it lives with the usage texts.
export { UsageError }

const SERVE_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  'log-level': { type: 'string' },
  admin: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

/** At least what `cursorSecret` takes; `etagKey` takes 16 characters or more. */
const SECRET_CHARACTERS = 32

/** Parses `serve` and `check` command lines (`env` for PORT, HOST and FMC_SECRET); throws UsageError naming the bad argument. */
export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ServeOrHelp {
  const { values, positionals } = withUsageErrors(SERVE_OPTIONS, () => parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: SERVE_OPTIONS }))
  if (values.help || positionals.length === 0) return { command: 'help' }
  const [command, file, ...rest] = positionals
  if (command !== 'serve' && command !== 'check') throw new UsageError(`Unknown command ${JSON.stringify(command)}: use serve or check`)
  if (file === undefined) throw new UsageError(`${command}: give the API file, e.g. ${command} api.json`)
  if (rest.length > 0) throw new UsageError(`Unexpected argument: ${rest.join(' ')}`)
  const portText = values.port ?? (env['PORT'] || '8000')
  const port = Number(portText)
  if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`The port must be an integer from 0 to 65535, got ${JSON.stringify(portText)}`)
  if (values.data === '') throw new UsageError('--data must not be empty')
  const logLevel = values['log-level'] as LogLevel | undefined
  if (logLevel !== undefined && !LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`)
  const secret = env['FMC_SECRET']
  if (secret !== undefined && secret.length < SECRET_CHARACTERS) {
    throw new UsageError(`FMC_SECRET must be a secret of at least ${SECRET_CHARACTERS} characters, got one of ${secret.length}`)
  }
  return {
    command,
    file,
    port,
    host: values.host ?? (env['HOST'] || '127.0.0.1'),
    data: values.data,
    ...(secret === undefined ? {} : { secret }),
    ...(logLevel === undefined ? {} : { logLevel }),
    ...(values.admin === true ? { admin: true } : {}),
  }
}
