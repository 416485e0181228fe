import { parseArgs } from 'node:util'
import type { WireServerOptions } from '../index.js'
import { isLoopbackHost } from './loopback-host.js'

export interface DbCommand {
  command: 'db'
  host: string
  port: number
  /** Data directory; undefined keeps the data in memory. */
  path: string | undefined
  /** `--allow-remote` was given with a host other than loopback: the start says there is no authentication. */
  remote: boolean
  /** Wire server limits given on the command line (the server's defaults for the others). */
  limits: Pick<WireServerOptions, 'maxConnections' | 'maxBufferedBytes' | 'partialMessageTimeoutMS'>
}

/** `fastify-mongo-crud-db backup <dir> <dest>`: a consistent copy of a data directory, live or not. */
export interface BackupCommand {
  command: 'backup'
  source: string
  destination: string
  compact: boolean
}

type CliCommand = DbCommand | BackupCommand | { command: 'help' }

export const USAGE = `Usage: fastify-mongo-crud-db [--port 27017] [--path ./data] [--host 127.0.0.1]
       fastify-mongo-crud-db backup <data directory> <new directory> [--compact]

  Serves the embedded engine over the MongoDB wire protocol (mongosh, Compass, drivers).
  --port    TCP port (default 27017; 0 picks a free one).
  --path    Data directory, created if missing (default: in memory, lost on exit).
  --host    Interface to listen on (default 127.0.0.1). The server has no authentication: a host
            other than loopback (127.0.0.0/8, ::1, localhost) needs --allow-remote.
  --allow-remote
            Listen on a host other than loopback, where anyone who reaches the port can read and
            change every database. Only behind a firewall you control.
  --max-connections N
            Connections open at once; one more is closed at once (default 1000).
  --max-buffered-bytes N
            Bytes all connections may hold in unfinished messages; past it the connection holding
            the most is closed (default 256000000).
  --partial-message-timeout-ms N
            Milliseconds a message may take to arrive; past it its connection is closed
            (default 60000; 0: no limit).

  backup    Copies a data directory, while a server serves it or not, as one consistent snapshot,
            into a new directory: a complete data directory, to serve with --path (a restore).
            --compact leaves out free pages (slower, smaller).`

export class UsageError extends Error {}

/** Parses the command line; throws UsageError naming the bad argument. */
export function parseCli(argv: string[]): CliCommand {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help) return { command: 'help' }
  if (positionals[0] === 'backup') return backupCommand(argv, positionals.slice(1), values.compact === true)
  if (values.compact) throw new UsageError('--compact goes with backup only')
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals.join(' ')}`)
  const port = Number(values.port ?? '27017')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`)
  if (values.path === '') throw new UsageError('--path must not be empty')
  const host = values.host ?? '127.0.0.1'
  const remote = !isLoopbackHost(host)
  if (remote && !values['allow-remote']) {
    throw new UsageError(
      `--host ${host} is not a loopback address (127.0.0.0/8, ::1, localhost) and the server has no authentication: anyone who reaches it can read and change every database. Pass --allow-remote to listen there anyway, behind a firewall you control.`
    )
  }
  const limits: DbCommand['limits'] = {}
  const maxConnections = integerFlag('--max-connections', values['max-connections'], 1)
  const maxBufferedBytes = integerFlag('--max-buffered-bytes', values['max-buffered-bytes'], 1024)
  const partialMessageTimeoutMS = integerFlag('--partial-message-timeout-ms', values['partial-message-timeout-ms'], 0)
  if (maxConnections !== undefined) limits.maxConnections = maxConnections
  if (maxBufferedBytes !== undefined) limits.maxBufferedBytes = maxBufferedBytes
  if (partialMessageTimeoutMS !== undefined) limits.partialMessageTimeoutMS = partialMessageTimeoutMS
  return { command: 'db', host, port, path: values.path, remote, limits }
}

function backupCommand(argv: string[], paths: string[], compact: boolean): BackupCommand {
  const [source, destination, ...more] = paths
  if (source === undefined || destination === undefined || source === '' || destination === '') throw new UsageError('backup needs the data directory and a new directory to copy it to')
  if (more.length > 0) throw new UsageError(`Unexpected argument: ${more.join(' ')}`)
  const other = argv.find((arg) => arg.startsWith('-') && arg !== '--compact')
  if (other !== undefined) throw new UsageError(`backup takes no ${other}: only --compact`)
  return { command: 'backup', source, destination, compact }
}

function integerFlag(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined
  const number = Number(value)
  if (value.trim() === '' || !Number.isSafeInteger(number) || number < min) throw new UsageError(`${flag} must be an integer of at least ${min}, got ${JSON.stringify(value)}`)
  return number
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      path: { type: 'string' },
      host: { type: 'string' },
      'allow-remote': { type: 'boolean' },
      'max-connections': { type: 'string' },
      'max-buffered-bytes': { type: 'string' },
      'partial-message-timeout-ms': { type: 'string' },
      compact: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
