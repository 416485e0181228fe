import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { MongoClient } from 'mongodb'
import type { ChangeRetention } from '../api-file/api-file.js'
import type { LoadedApiFile } from '../api-file/load-api-file.js'
import type { DriverDb } from '../store/driver-db.js'

type DatabaseChoice =
  | { engine: 'mongodb', uri: string, name: string | undefined }
  | { engine: 'embedded', path: string | undefined, changeRetention?: ChangeRetention | undefined }

/** A database the command opened, and how to close it. */
interface OpenedDatabase {
  db: DriverDb
  /** For the start line: `MongoDB, database shop`, `embedded engine, data in /abs/data`. */
  description: string
  close(): Promise<void>
}

/**
 * How long a request waits for the database to answer before it is refused with 503 while the
 * database is out of reach (the driver's `serverSelectionTimeoutMS`; its own default, 30 s, outlasts
 * the patience of most clients and proxies). Long enough for the driver to reconnect to a restarted
 * server, or for a replica set's quick election; a longer outage answers 503 with Retry-After.
 * A `serverSelectionTimeoutMS` in MONGODB_URI wins.
 */
const SERVER_SELECTION_TIMEOUT_MS = 5_000

/** A failure the command explains in one sentence (no stack trace). */
export class DatabaseError extends Error {}

/**
 * Which database to serve: `--data`, else MONGODB_URI, else FMC_DATA_DIR, else the file's `database`
 * (its `path` relative to the file), else the embedded engine in memory.
 */
export function chooseDatabase(loaded: LoadedApiFile, data: string | undefined, env: NodeJS.ProcessEnv): DatabaseChoice {
  const declared = loaded.api.database
  // The engine's retention is the file's wherever its data lives (`--data`, FMC_DATA_DIR or the file's path).
  const changeRetention = declared?.changeRetention
  if (data !== undefined) return { engine: 'embedded', path: resolve(data), changeRetention }
  const uri = env['MONGODB_URI']
  if (uri) return { engine: 'mongodb', uri, name: declared?.name }
  const dir = env['FMC_DATA_DIR']
  if (dir) return { engine: 'embedded', path: resolve(dir), changeRetention }
  if (declared?.engine === 'mongodb') {
    const at = loaded.positions.get('/database/engine')?.value
    throw new DatabaseError(`${loaded.name}:${at?.line}:${at?.column}: the file asks for MongoDB, but MONGODB_URI is not set`)
  }
  return { engine: 'embedded', path: declared?.path === undefined ? undefined : resolve(loaded.dir, declared.path), changeRetention }
}

/** The engine's package: separate from the router (which never depends on it), imported only when chosen. */
const EMBEDDED_PACKAGE = '@fastify-mongo-crud/embedded'

type EmbeddedModule = { openEmbedded(options: { path?: string, changeRetention?: ChangeRetention }): Promise<DriverDb & { close(): Promise<void> }> }

/** Opens the chosen database. `embeddedPackage` is the engine's module name (tests name a missing one). */
export async function openDatabase(choice: DatabaseChoice, embeddedPackage = EMBEDDED_PACKAGE): Promise<OpenedDatabase> {
  if (choice.engine === 'mongodb') {
    const client = new MongoClient(choice.uri, /[?&]serverSelectionTimeoutMS=/i.test(choice.uri) ? {} : { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS })
    try {
      await client.connect()
    } catch (error) {
      throw new DatabaseError(`cannot connect to MONGODB_URI: ${(error as Error).message}`)
    }
    const db = client.db(choice.name)
    return { db: db as unknown as DriverDb, description: `MongoDB, database ${db.databaseName}`, close: () => client.close() }
  }
  let engine: EmbeddedModule
  try {
    // A computed specifier: the router's build and type check do not need the engine installed.
    engine = (await import(embeddedPackage)) as EmbeddedModule
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && (error as Error).message.includes(embeddedPackage)) {
      throw new DatabaseError(
        `the embedded engine is not installed: run \`npm install ${embeddedPackage}\`, or set MONGODB_URI to serve a MongoDB database`
      )
    }
    throw error
  }
  if (choice.path !== undefined) await mkdir(choice.path, { recursive: true })
  const db = await engine.openEmbedded({
    ...(choice.path === undefined ? {} : { path: choice.path }),
    ...(choice.changeRetention === undefined ? {} : { changeRetention: choice.changeRetention }),
  })
  return {
    db,
    description: choice.path === undefined ? 'embedded engine, data in memory (lost on exit)' : `embedded engine, data in ${choice.path}`,
    close: () => db.close(),
  }
}
