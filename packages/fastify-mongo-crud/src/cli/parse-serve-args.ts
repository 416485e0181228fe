import { parseArgs } from 'node:util'
import type { LogLevel } from '../api-file/api-file.js'

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
}

type CliCommand = ServeCommand | { command: 'help' }

export const USAGE = `Usage: fastify-mongo-crud serve <api.json> [--port 8000] [--host 127.0.0.1] [--data ./data] [--log-level info]
       fastify-mongo-crud check <api.json>

  serve   Serves the API the file declares, with its docs at /docs and /redoc.
  check   Runs every check serve runs (the routers' registration too, on no database) and
          prints every error of the file (line:column), serving nothing.
  --port  TCP port (default: PORT, else 8000; 0 picks a free one).
  --host  Interface to listen on (default: HOST, else 127.0.0.1).
  --data  Data directory of the embedded engine (created if missing).
  --log-level  fatal, error, warn, info (every request), debug, trace or silent
          (default: the file's logLevel, else warn).

  The database: --data, else MONGODB_URI (MongoDB), else FMC_DATA_DIR (embedded engine), else the
  file's "database", else the embedded engine in memory. The embedded engine is the package
  @fastify-mongo-crud/embedded, installed separately.
  FMC_SECRET (at least 32 characters) seals page cursors and keys ETags: give every instance serving
  one API the same, so that a cursor or ETag one answered holds on the others.
  File format: schema/api-file.schema.json in this package, docs/api-file.md in the repository.`

export class UsageError extends Error {}

/** At least what `cursorSecret` takes; `etagKey` takes 16 characters or more. */
const SECRET_CHARACTERS = 32

/** Parses the command line (`env` for PORT, HOST and FMC_SECRET); throws UsageError naming the bad argument. */
export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values, positionals } = parsed
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
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
