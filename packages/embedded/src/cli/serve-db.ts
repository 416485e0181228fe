import { mkdir, readFile } from 'node:fs/promises'
import { createSecureContext } from 'node:tls'
import { openEmbedded, startWireServer } from '../index.js'
import type { DbCommand } from './parse-args.js'

/**
 * `fastify-mongo-crud-db`: opens the engine, serves it, prints the URI (alone on the first line,
 * for scripts), and on SIGINT / SIGTERM closes connections, then the engine, and exits 0. A
 * connection the server's limits refuse or close is logged, one line each. What would leave the
 * data open to others is said at the start: no authentication off loopback, no TLS on a network, no
 * user yet under `--auth`.
 */
export async function serveDb(options: DbCommand, log: (line: string) => void = console.log): Promise<void> {
  const tls = options.tls === undefined ? undefined : await readKeyFile(options.tls)
  if (options.path !== undefined) await mkdir(options.path, { recursive: true })
  const engine = await openEmbedded(options.path === undefined ? {} : { path: options.path })
  let server: Awaited<ReturnType<typeof startWireServer>>
  try {
    server = await startWireServer(engine, {
      host: options.host,
      port: options.port,
      auth: options.auth,
      ...(tls === undefined ? {} : { tls }),
      ...(options.replSet === undefined ? {} : { replSet: options.replSet }),
      ...(options.replSetHost === undefined ? {} : { replSetHost: options.replSetHost }),
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
  log(options.replSet === undefined ? server.uri : `${server.uri}${server.uri.includes('?') ? '&' : '?'}replicaSet=${options.replSet}`)
  const role = options.replSet === undefined ? '' : `, primary of the single-node replica set ${options.replSet}`
  const security = `${role}${options.auth ? ', clients log in (--auth)' : ''}${tls === undefined ? '' : ', TLS required'}`
  log(`fastify-mongo-crud-db: listening on ${server.host}:${server.port}, data ${options.path === undefined ? 'in memory' : `in ${options.path}`}${security}. Ctrl-C stops.`)
  if (options.remote && !options.auth) {
    log(`fastify-mongo-crud-db: WARNING: no authentication, and ${options.host} is not loopback (--noauth-on-network): anyone who reaches port ${server.port} can read and change every database.`)
  }
  if (options.remote && options.auth && tls === undefined) {
    log(`fastify-mongo-crud-db: WARNING: no TLS, and ${options.host} is not loopback: passwords never cross the network (SCRAM), but documents do, readable by anyone on the way. Add --tlsMode requireTLS.`)
  }
  // Users are documents of admin.system.users, which the engine's API reads like any collection.
  if (options.auth && (await engine.db('admin').collection('system.users').countDocuments({})) === 0) {
    const ca = tls === undefined ? '' : ' --tlsCAFile <certificate of its authority>'
    log(
      `fastify-mongo-crud-db: no user yet: create the first from this machine (the localhost exception), e.g. mongosh "${server.uri}"${ca} --eval "db.getSiblingDB('admin').createUser({ user: 'admin', pwd: passwordPrompt(), roles: ['root'] })"`
    )
  }
  await stopped
  await server.close()
  await engine.close()
  log('fastify-mongo-crud-db: stopped')
}

/** The PEM file of `--tlsCertificateKeyFile`: the certificate and its key, as Node's TLS takes them. */
async function readKeyFile(options: NonNullable<DbCommand['tls']>): Promise<{ key: Buffer, cert: Buffer, passphrase?: string }> {
  let pem: Buffer
  try {
    pem = await readFile(options.certificateKeyFile)
  } catch (error) {
    throw new Error(`cannot read --tlsCertificateKeyFile ${options.certificateKeyFile}: ${(error as Error).message}`)
  }
  const tls = { key: pem, cert: pem, ...(options.password === undefined ? {} : { passphrase: options.password }) }
  try {
    // Checked here, to name the file: a key that is missing, encrypted without the right password, or not the certificate's.
    createSecureContext(tls)
  } catch (error) {
    throw new Error(`--tlsCertificateKeyFile ${options.certificateKeyFile} does not hold a usable certificate and private key: ${(error as Error).message}`)
  }
  return tls
}
