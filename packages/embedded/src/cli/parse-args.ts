import { parseArgs } from 'node:util'
import { isLoopbackHost, type WireServerOptions } from '../index.js'

export interface DbCommand {
  command: 'db'
  host: string
  port: number
  /** Data directory; undefined keeps the data in memory. */
  path: string | undefined
  /** The host is not loopback: reachable from other machines. */
  remote: boolean
  /** `--auth`: clients log in as users made with createUser. */
  auth: boolean
  /** `--tlsMode requireTLS`: the PEM file holding the certificate and its private key, and the key's password if any. */
  tls: { certificateKeyFile: string, password: string | undefined } | undefined
  /** `--replSet <name>`: the server presents a single-node replica set of this name. */
  replSet: string | undefined
  /** `--replSetHost host:port`: the address its member goes by (default: the listening one). */
  replSetHost: string | undefined
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

export const USAGE = `Usage: fastify-mongo-crud-db [--port 27017] [--dbpath ./data] [--bind_ip 127.0.0.1] [--auth]
                             [--tlsMode requireTLS --tlsCertificateKeyFile server.pem]
                             [--replSet rs0 [--replSetHost db.example:27017]]
       fastify-mongo-crud-db backup <data directory> <new directory> [--compact]

  Serves the embedded engine over the MongoDB wire protocol (mongosh, Compass, drivers), with
  mongod's option names.
  --port    TCP port (default 27017; 0 picks a free one).
  --dbpath  Data directory, created if missing (default: in memory, lost on exit). Also --path.
  --bind_ip Interface to listen on, one address (default 127.0.0.1). Also --host. An address other
            than loopback (127.0.0.0/8, ::1, localhost) needs --auth, or --noauth-on-network.
  --auth    Clients must log in (SCRAM-SHA-256) as users made with createUser, stored in the data
            directory, each allowed what its roles allow. Until the first user exists, a client on
            this machine may create it in admin (the localhost exception).
  --tlsMode requireTLS
            Every connection must use TLS (a plain one is closed). Needs --tlsCertificateKeyFile.
  --tlsCertificateKeyFile FILE
            PEM file with the server's certificate and its private key.
  --tlsCertificateKeyFilePassword PASSWORD
            Password of that private key, if it is encrypted.
  --replSet NAME
            Present a single-node replica set of that name, initiated from the start (this server
            its primary): drivers connect with ?replicaSet=NAME or ?directConnection=true, and
            get what they do only with a replica set (retryable writes, startAtOperationTime).
  --replSetHost HOST:PORT
            With --replSet: the address the member goes by in hello, which a driver given
            ?replicaSet= connects to (default: the listening address; the machine's name for
            0.0.0.0 or ::). Set it when clients reach the server by another name (a container).
  --noauth-on-network
            Listen on an address other than loopback without --auth, where anyone who reaches the
            port can read and change every database. Only behind a firewall you control. Also
            --allow-remote.
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
  const path = oneOf('--dbpath', values.dbpath, '--path', values.path)
  if (path === '') throw new UsageError(`${values.dbpath === undefined ? '--path' : '--dbpath'} must not be empty`)
  const host = oneOf('--bind_ip', values.bind_ip, '--host', values.host) ?? '127.0.0.1'
  const hostFlag = values.bind_ip === undefined && values.host !== undefined ? '--host' : '--bind_ip'
  if (host.includes(',')) throw new UsageError(`${hostFlag} takes one address, got ${JSON.stringify(host)}`)
  const auth = values.auth === true
  const remote = !isLoopbackHost(host)
  if (remote && !auth && !values['noauth-on-network'] && !values['allow-remote']) {
    throw new UsageError(
      `${hostFlag} ${host} is not a loopback address (127.0.0.0/8, ::1, localhost) and --auth is off: anyone who reaches it could read and change every database. Add --auth (clients then log in as users made with createUser), or pass --noauth-on-network to listen there without authentication, behind a firewall you control.`
    )
  }
  const tls = tlsOptions(values.tlsMode, values.tlsCertificateKeyFile, values.tlsCertificateKeyFilePassword)
  const limits: DbCommand['limits'] = {}
  const maxConnections = integerFlag('--max-connections', values['max-connections'], 1)
  const maxBufferedBytes = integerFlag('--max-buffered-bytes', values['max-buffered-bytes'], 1024)
  const partialMessageTimeoutMS = integerFlag('--partial-message-timeout-ms', values['partial-message-timeout-ms'], 0)
  if (maxConnections !== undefined) limits.maxConnections = maxConnections
  if (maxBufferedBytes !== undefined) limits.maxBufferedBytes = maxBufferedBytes
  if (partialMessageTimeoutMS !== undefined) limits.partialMessageTimeoutMS = partialMessageTimeoutMS
  const replSet = replSetName(values.replSet)
  if (values.replSetHost !== undefined && replSet === undefined) throw new UsageError('--replSetHost goes with --replSet')
  // Its form (host:port) is the wire server's to check (replSetHost), as the start's other errors.
  return { command: 'db', host, port, path, remote, auth, tls, replSet, replSetHost: values.replSetHost, limits }
}

/** A flag with two names (mongod's and the engine's first one): either, or both with the same value. */
function oneOf(name: string, value: string | undefined, oldName: string, oldValue: string | undefined): string | undefined {
  if (value !== undefined && oldValue !== undefined && value !== oldValue) throw new UsageError(`${name} and ${oldName} are the same option: give one`)
  return value ?? oldValue
}

/** `--tlsMode`: `disabled` (the default) or `requireTLS`, which needs the key file; mongod's allowTLS and preferTLS (plain and TLS on one port) are not served. */
function tlsOptions(mode: string | undefined, file: string | undefined, password: string | undefined): DbCommand['tls'] {
  if (mode !== undefined && mode !== 'disabled' && mode !== 'requireTLS') {
    throw new UsageError(`--tlsMode must be requireTLS or disabled, got ${JSON.stringify(mode)} (allowTLS and preferTLS, plain and TLS connections on one port, are not supported)`)
  }
  if (mode === 'requireTLS') {
    if (file === undefined || file === '') throw new UsageError('--tlsMode requireTLS needs --tlsCertificateKeyFile, the PEM file with the certificate and its private key')
    return { certificateKeyFile: file, password }
  }
  if (file !== undefined || password !== undefined) throw new UsageError('--tlsCertificateKeyFile goes with --tlsMode requireTLS')
  return undefined
}

/** `--replSet <name>`; mongod's `<name>/<seed hosts>` form names other members, which a single-node set has none of. */
function replSetName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  if (value.includes('/')) throw new UsageError(`--replSet takes the set's name alone (this server is its only member), got ${JSON.stringify(value)}`)
  if (value === '' || /[\s,\0]/.test(value)) throw new UsageError(`--replSet must be a replica set name (no spaces or commas), got ${JSON.stringify(value)}`)
  return value
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
      dbpath: { type: 'string' },
      path: { type: 'string' },
      bind_ip: { type: 'string' },
      host: { type: 'string' },
      auth: { type: 'boolean' },
      tlsMode: { type: 'string' },
      tlsCertificateKeyFile: { type: 'string' },
      tlsCertificateKeyFilePassword: { type: 'string' },
      replSet: { type: 'string' },
      replSetHost: { type: 'string' },
      'noauth-on-network': { type: 'boolean' },
      'allow-remote': { type: 'boolean' },
      'max-connections': { type: 'string' },
      'max-buffered-bytes': { type: 'string' },
      'partial-message-timeout-ms': { type: 'string' },
      compact: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
