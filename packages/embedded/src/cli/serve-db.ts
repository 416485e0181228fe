import { mkdir } from 'node:fs/promises'
import { openEmbedded, startWireServer } from '../index.js'
import type { DbCommand } from './parse-args.js'

/**
 * `fastify-mongo-crud-db`: opens the engine, serves it, prints the URI (alone on the first line,
 * for scripts), and on SIGINT / SIGTERM closes connections, then the engine, and exits 0. A
 * connection the server's limits refuse or close is logged, one line each.
 */
export async function serveDb(options: DbCommand, log: (line: string) => void = console.log): Promise<void> {
  if (options.path !== undefined) await mkdir(options.path, { recursive: true })
  const engine = await openEmbedded(options.path === undefined ? {} : { path: options.path })
  let server: Awaited<ReturnType<typeof startWireServer>>
  try {
    server = await startWireServer(engine, {
      host: options.host,
      port: options.port,
      ...options.limits,
      onLimit: (event) => log(`fastify-mongo-crud-db: ${event.message}`),
    })
  } catch (error) {
    await engine.close()
    throw error
  }
  // The handlers go in before the URI is printed: a script that reads the URI and signals at
  // once must get a clean stop, not the default action of a signal nobody listens to yet.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  log(server.uri)
  log(`fastify-mongo-crud-db: listening on ${server.host}:${server.port}, data ${options.path === undefined ? 'in memory' : `in ${options.path}`}. Ctrl-C stops.`)
  if (options.remote) {
    log(`fastify-mongo-crud-db: WARNING: no authentication, and ${options.host} is not loopback (--allow-remote): anyone who reaches port ${server.port} can read and change every database.`)
  }
  await stopped
  await server.close()
  await engine.close()
  log('fastify-mongo-crud-db: stopped')
}
