import { createServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer, type TlsOptions } from 'node:tls'
import type { EmbeddedDb } from '../embedded-db.js'
import { CursorOwners } from './auth/cursor-owners.js'
import { UserStore } from './auth/user-store.js'
import { BufferBudget } from './buffer-budget.js'
import { runCommand, type ServerState } from './commands/run-command.js'
import { CursorRegistry, DEFAULT_MAX_CURSORS, DEFAULT_MAX_CURSORS_PER_CONNECTION } from './cursor-registry.js'
import { ReplicaSet } from './replica-set.js'
import { ServerActivity } from './server-activity.js'
import { type DropReason, WireConnection } from './wire-connection.js'

export interface WireServerOptions {
  /** Interface to listen on. Default `127.0.0.1`: only this machine reaches it. */
  host?: string
  /** Port; 0 (the default) picks a free one. */
  port?: number
  /** Largest message accepted, in bytes; a larger one is answered with an error and the connection closed. Default 48 000 000, as MongoDB. */
  maxMessageBytes?: number
  /** Open cursors the server keeps at most; a find that would open one more fails (OperationFailed). Default 10 000. */
  maxCursors?: number
  /** Open cursors one connection keeps at most. Default 1 000. */
  maxCursorsPerConnection?: number
  /** Connections open at once; one more is closed as soon as it is accepted. Default 1 000. */
  maxConnections?: number
  /**
   * Bytes all connections together may hold in messages not yet whole (or queued). Past it the
   * connection holding the most is closed. At least `maxMessageBytes`. Default 256 000 000.
   */
  maxBufferedBytes?: number
  /** Milliseconds a message may take to arrive once its first byte has; past it the connection is closed. 0: no limit. Default 60 000. */
  partialMessageTimeoutMS?: number
  /** Told, once per event, when the server refuses or closes a connection to protect the others (nothing is printed otherwise). */
  onLimit?: (event: WireLimitEvent) => void
  /**
   * Require authentication, as mongod's `--auth`: every command but the handshake and the login needs
   * a user, made with `createUser` and stored in the engine (`admin.system.users`), whose roles allow
   * it (Unauthorized, 13, otherwise). Until the first user exists, a client on this machine (loopback)
   * may create it (mongod's localhost exception). Default false: anyone who reaches the port may do anything.
   */
  auth?: boolean
  /**
   * Serve TLS only, as mongod's `--tlsMode requireTLS`: Node's `tls.createServer` options (at least
   * `key` and `cert`, PEM); a client that does not speak TLS is closed before any command.
   */
  tls?: TlsOptions
  /**
   * Present a single-node replica set of this name, as mongod's `--replSet` once initiated: `hello`
   * names the set and this server its primary, replies carry `$clusterTime` and `operationTime`,
   * and writes with a session's transaction number are retryable writes (done once, their retries
   * answered as the first attempt was). Drivers connect with `?replicaSet=<name>` or
   * `?directConnection=true`. Default: a standalone, which refuses retryable writes as mongod does.
   */
  replSet?: string
  /**
   * With `replSet`: the `host:port` the member goes by in `hello` (`hosts`, `primary`, `me`), which a
   * driver given `?replicaSet=` connects to. Default: the listening address (the machine's name when
   * listening on 0.0.0.0 or ::), as mongod's default member host.
   */
  replSetHost?: string
}

/** A connection the server refused or closed because of one of its limits. */
export type WireLimitEvent =
  | { kind: 'connection-refused', remote: string, connections: number, message: string }
  | { kind: 'connection-dropped', reason: DropReason, connectionId: number, heldBytes: number, message: string }

/** What the server holds now, and what its limits did since it started. */
export interface WireServerStats {
  /** Connections open now. */
  connections: number
  /** Bytes held now in messages not yet whole (or queued), over all connections. */
  bufferedBytes: number
  /** The most `bufferedBytes` ever was. */
  peakBufferedBytes: number
  /** Connections closed on accept because `maxConnections` were open. */
  refusedConnections: number
  /** Connections closed because the buffered bytes would have passed `maxBufferedBytes`. */
  droppedForBufferedBytes: number
  /** Connections closed because a message took longer than `partialMessageTimeoutMS` to arrive. */
  droppedForPartialMessageTimeout: number
}

export interface WireServer {
  host: string
  port: number
  /** `mongodb://host:port/` (with `?tls=true` under TLS), for `new MongoClient(uri)` or `mongosh`. */
  uri: string
  /** Current connections and buffered bytes, and the counts of what the limits refused. */
  stats(): WireServerStats
  /** Stops listening, closes every connection and cursor. The engine stays open (the caller owns it). */
  close(): Promise<void>
}

const DEFAULT_MAX_MESSAGE_BYTES = 48_000_000
/** Far more than a test suite or an app's pools open (a driver's default pool is 100, plus its monitor). */
const DEFAULT_MAX_CONNECTIONS = 1_000
/** Five messages of the largest size arriving at once; 20 clients each holding 40 MB would otherwise take 800 MB. */
const DEFAULT_MAX_BUFFERED_BYTES = 256_000_000
/** A 48 MB message at under 1 MB/s still arrives; a socket trickling a message holds its bytes a minute at most. */
const DEFAULT_PARTIAL_MESSAGE_TIMEOUT_MS = 60_000

/** The server's limits, each its default when not given; a value out of range is a RangeError naming it. */
function checkedLimits(options: WireServerOptions) {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1024) {
    throw new RangeError(`maxMessageBytes must be an integer of at least 1024, got ${maxMessageBytes}`)
  }
  const maxCursors = options.maxCursors ?? DEFAULT_MAX_CURSORS
  const maxCursorsPerConnection = options.maxCursorsPerConnection ?? DEFAULT_MAX_CURSORS_PER_CONNECTION
  for (const [name, value] of Object.entries({ maxCursors, maxCursorsPerConnection })) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`)
  }
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new RangeError(`maxConnections must be a positive integer, got ${maxConnections}`)
  const maxBufferedBytes = options.maxBufferedBytes ?? Math.max(DEFAULT_MAX_BUFFERED_BYTES, maxMessageBytes)
  if (!Number.isInteger(maxBufferedBytes) || maxBufferedBytes < maxMessageBytes) {
    throw new RangeError(`maxBufferedBytes must be an integer of at least maxMessageBytes (${maxMessageBytes}), got ${maxBufferedBytes}`)
  }
  const partialMessageTimeoutMS = options.partialMessageTimeoutMS ?? DEFAULT_PARTIAL_MESSAGE_TIMEOUT_MS
  if (!Number.isInteger(partialMessageTimeoutMS) || partialMessageTimeoutMS < 0 || partialMessageTimeoutMS > 2 ** 31 - 1) {
    throw new RangeError(`partialMessageTimeoutMS must be an integer from 0 (no limit) to 2147483647, got ${partialMessageTimeoutMS}`)
  }
  return { maxMessageBytes, maxCursors, maxCursorsPerConnection, maxConnections, maxBufferedBytes, partialMessageTimeoutMS }
}

/** Resolves once the server listens; rejects with its error (an address in use) otherwise. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** The replica set of `replSet`, its name checked as mongod checks `--replSet`. */
function replicaSetOf(options: WireServerOptions): ReplicaSet | undefined {
  const { replSet, replSetHost } = options
  if (replSet === undefined) {
    if (replSetHost !== undefined) throw new RangeError('replSetHost goes with replSet')
    return undefined
  }
  if (typeof replSet !== 'string' || replSet === '' || /[\s/,\0]/.test(replSet)) {
    throw new RangeError(`replSet must be a replica set name (no spaces, slashes or commas), got ${JSON.stringify(replSet)}`)
  }
  if (replSetHost !== undefined && !/^[^\s:/,]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/.test(replSetHost)) {
    throw new RangeError(`replSetHost must be host:port, got ${JSON.stringify(replSetHost)}`)
  }
  return new ReplicaSet(replSet, replSetHost)
}

/**
 * Serves an embedded engine over the MongoDB wire protocol, so the official driver, mongosh and
 * Compass can use it. Each request's `$db` selects a database of the engine (`db.db(name)`).
 */
export async function startWireServer(db: EmbeddedDb, options: WireServerOptions = {}): Promise<WireServer> {
  const host = options.host ?? '127.0.0.1'
  const { maxMessageBytes, maxCursors, maxCursorsPerConnection, maxConnections, maxBufferedBytes, partialMessageTimeoutMS } = checkedLimits(options)
  const onLimit = options.onLimit ?? (() => undefined)
  const activity = new ServerActivity()
  const state: ServerState = {
    engine: db,
    cursors: new CursorRegistry({ maxCursors, maxCursorsPerConnection }),
    maxMessageBytes,
    security: { enabled: options.auth === true, users: UserStore.of(db) },
    cursorOwners: new CursorOwners(),
    activity,
    address: '',
    maxConnections,
    tlsMode: options.tls === undefined ? 'disabled' : 'requireTLS',
    replicaSet: replicaSetOf(options),
  }
  const connections = new Set<WireConnection>()
  const budget = new BufferBudget(maxBufferedBytes)
  const counts = { refusedConnections: 0, droppedForBufferedBytes: 0, droppedForPartialMessageTimeout: 0 }
  let nextId = 1
  const accept = (socket: Socket) => {
    if (connections.size >= maxConnections) {
      const remote = `${socket.remoteAddress}:${socket.remotePort}`
      // As MongoDB does: closed at once, before a byte is read; the ones open are untouched.
      socket.destroy()
      counts.refusedConnections++
      onLimit({ kind: 'connection-refused', remote, connections: connections.size, message: `refused a connection from ${remote}: ${connections.size} open, maxConnections is ${maxConnections}` })
      return
    }
    const id = nextId++
    const onDrop = (reason: DropReason, heldBytes: number) => {
      if (reason === 'max-buffered-bytes') counts.droppedForBufferedBytes++
      else counts.droppedForPartialMessageTimeout++
      const why = reason === 'max-buffered-bytes'
        ? `it held the most bytes (${heldBytes}) when the server's buffered messages reached maxBufferedBytes (${maxBufferedBytes})`
        : `a message took longer than partialMessageTimeoutMS (${partialMessageTimeoutMS} ms) to arrive, ${heldBytes} bytes of it received`
      onLimit({ kind: 'connection-dropped', reason, connectionId: id, heldBytes, message: `closed connection ${id}: ${why}` })
    }
    const peer = activity.connect(id, socket)
    const connection = new WireConnection(socket, id, { maxMessageBytes, budget, partialMessageTimeoutMS, onDrop }, (request) => runCommand(request, peer, state))
    connections.add(connection)
    socket.once('close', () => {
      connections.delete(connection)
      activity.disconnect(peer)
      void state.cursors.closeOwnedBy(connection.id)
    })
  }
  // With TLS, a connection counts once its handshake is done: a client that does not speak TLS never reaches a command.
  const server: Server = options.tls === undefined ? createServer(accept) : createTlsServer(options.tls, accept)
  await listen(server, options.port ?? 0, host)
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('wire server has no TCP address')
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  state.address = `${shownHost}:${address.port}`
  state.replicaSet?.listening(address.address, address.port)
  return {
    host: address.address,
    port: address.port,
    uri: `mongodb://${shownHost}:${address.port}/${options.tls === undefined ? '' : '?tls=true'}`,
    stats: () => ({ connections: connections.size, bufferedBytes: budget.total, peakBufferedBytes: budget.peak, ...counts }),
    async close() {
      // Awaitable hellos answer now (and stop streaming): the connections they hold are about to close.
      state.replicaSet?.stop()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      const ending = [...connections].map((connection) => connection.closed)
      // Reset, not ended: a driver (mongodb 7.9) polling a server that does not stream its heartbeats
      // can send a heartbeat on a connection whose FIN it has read but whose close it has not yet seen,
      // and then waits for that reply forever: its monitor never checks the server again, and the
      // client never reconnects to a server started again. A reset is an error it sees at once.
      for (const connection of connections) connection.reset()
      await Promise.all([closed, ...ending])
      await state.cursors.closeAll()
    },
  }
}
