import { parseArgs } from 'node:util'

export interface DbCommand {
  command: 'db'
  host: string
  port: number
  /** Data directory; undefined keeps the data in memory. */
  path: string | undefined
}

export type CliCommand = DbCommand | { command: 'help' }

export const USAGE = `Usage: fastify-mongo-crud-db [--port 27017] [--path ./data] [--host 127.0.0.1]

  Serves the embedded engine over the MongoDB wire protocol (mongosh, Compass, drivers).
  --port    TCP port (default 27017; 0 picks a free one).
  --path    Data directory, created if missing (default: in memory, lost on exit).
  --host    Interface to listen on (default 127.0.0.1). The server has no authentication:
            listen on another interface only behind a firewall you control.`

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
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals.join(' ')}`)
  const port = Number(values.port ?? '27017')
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`)
  if (values.path === '') throw new UsageError('--path must not be empty')
  return { command: 'db', host: values.host ?? '127.0.0.1', port, path: values.path }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      path: { type: 'string' },
      host: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
