import type { EmbeddedDb } from '../embedded-db.js'
import type { WireServer, WireServerOptions } from './wire-server.js'

/**
 * `startWireServer` as the package exports it: the wire server's modules (a quarter of the engine's)
 * are loaded when it is first called, so that an application that only opens the engine in process
 * (`fastify-mongo-crud serve`) starts without them.
 */
export async function startWireServer(db: EmbeddedDb, options: WireServerOptions = {}): Promise<WireServer> {
  const { startWireServer: start } = await import('./wire-server.js')
  return start(db, options)
}
