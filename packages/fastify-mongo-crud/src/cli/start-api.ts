import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApiApp } from '../api-file/build-api-app.js'
import type { LoadedApiFile } from '../api-file/load-api-file.js'
import { chooseDatabase, openDatabase } from './open-database.js'
import type { ServeCommand } from './parse-serve-args.js'

/** An API file served: where, on what, and how to stop it (the server first, then the database). */
export interface ServedApi {
  app: FastifyInstance
  origin: string
  /** `MongoDB, database shop`, `embedded engine, data in /abs/dir`... */
  database: string
  close(): Promise<void>
}

/** Opens the database the command and the environment choose, builds the file's app on it (`auth.secretEnv` read from `env`) and listens. */
export async function startApi(loaded: LoadedApiFile, command: Pick<ServeCommand, 'port' | 'host' | 'data' | 'secret' | 'logLevel' | 'admin'>, env: NodeJS.ProcessEnv): Promise<ServedApi> {
  const database = await openDatabase(chooseDatabase(loaded, command.data, env))
  let app: FastifyInstance
  try {
    app = await buildApiApp(loaded, database.db, {
      env,
      ...(command.secret === undefined ? {} : { secret: command.secret }),
      ...(command.logLevel === undefined ? {} : { logLevel: command.logLevel }),
      ...(command.admin === true ? { admin: true } : {}),
    })
    await app.listen({ port: command.port, host: command.host })
  } catch (error) {
    await database.close()
    throw error
  }
  const { port } = app.server.address() as AddressInfo
  return {
    app,
    origin: `http://${command.host.includes(':') ? `[${command.host}]` : command.host}:${port}`,
    database: database.description,
    async close() {
      await app.close()
      await database.close()
    },
  }
}
