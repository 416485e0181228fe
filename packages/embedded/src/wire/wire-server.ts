import { createServer, type Server } from 'node:net'
import type { EmbeddedDb } from '../index.js'
import { runCommand, type ServerState } from './commands/run-command.js'
import { CursorRegistry, DEFAULT_MAX_CURSORS, DEFAULT_MAX_CURSORS_PER_CONNECTION } from './cursor-registry.js'
import { WireConnection } from './wire-connection.js'

export interface WireServerOptions {
  /** Interface to listen on. Default `127.0.0.1`: the server has no authentication. */
  host?: string
  /** Port; 0 (the default) picks a free one. */
  port?: number
  /** Largest message accepted, in bytes; a larger one is answered with an error and the connection closed. Default 48 000 000, as MongoDB. */
  maxMessageBytes?: number
  /** Open cursors the server keeps at most; a find that would open one more fails (OperationFailed). Default 10 000. */
  maxCursors?: number
  /** Open cursors one connection keeps at most. Default 1 000. */
  maxCursorsPerConnection?: number
}

export interface WireServer {
  host: string
  port: number
  /** `mongodb://host:port/`, for `new MongoClient(uri)` or `mongosh`. */
  uri: string
  /** Stops listening, closes every connection and cursor. The engine stays open (the caller owns it). */
  close(): Promise<void>
}

export const DEFAULT_MAX_MESSAGE_BYTES = 48_000_000

/**
 * Serves an embedded engine over the MongoDB wire protocol, so the official driver, mongosh and
 * Compass can use it. Each request's `$db` selects a database of the engine (`db.db(name)`).
 */
export async function startWireServer(db: EmbeddedDb, options: WireServerOptions = {}): Promise<WireServer> {
  const host = options.host ?? '127.0.0.1'
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1024) {
    throw new RangeError(`maxMessageBytes must be an integer of at least 1024, got ${maxMessageBytes}`)
  }
  const maxCursors = options.maxCursors ?? DEFAULT_MAX_CURSORS
  const maxCursorsPerConnection = options.maxCursorsPerConnection ?? DEFAULT_MAX_CURSORS_PER_CONNECTION
  for (const [name, value] of Object.entries({ maxCursors, maxCursorsPerConnection })) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`)
  }
  const state: ServerState = { engine: db, cursors: new CursorRegistry({ maxCursors, maxCursorsPerConnection }), maxMessageBytes }
  const connections = new Set<WireConnection>()
  let nextId = 1
  const server: Server = createServer((socket) => {
    const connection = new WireConnection(socket, nextId++, maxMessageBytes, (request, id) => runCommand(request, id, state))
    connections.add(connection)
    socket.once('close', () => {
      connections.delete(connection)
      void state.cursors.closeOwnedBy(connection.id)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('wire server has no TCP address')
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    host: address.address,
    port: address.port,
    uri: `mongodb://${shownHost}:${address.port}/`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      const ending = [...connections].map((connection) => connection.closed)
      for (const connection of connections) connection.destroy()
      await Promise.all([closed, ...ending])
      await state.cursors.closeAll()
    },
  }
}
