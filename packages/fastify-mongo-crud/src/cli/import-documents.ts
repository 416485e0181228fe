import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ApiFile } from '../api-file/api-file.js'
import { buildApiApp } from '../api-file/build-api-app.js'
import type { LoadedApiFile } from '../api-file/loaded-api-file.js'
import { verifyApiFileAt } from '../api-file/verify-api-file.js'
import { appRegistry } from '../app-registry.js'
import { crudService } from '../service/crud-service.js'
import type { DriverDb } from '../store/driver-db.js'
import { CommandFailure } from './command-failure.js'
import { type CreateOutcome, createAllOrNothing } from './create-all-or-nothing.js'
import { findRouter } from './find-router.js'
import { chooseDatabase, openDatabase } from './open-database.js'
import type { ImportCommand } from './parse-import-args.js'
import { type DocumentLine, readDocuments } from './read-documents.js'
import { refusalDetail, uniqueFields } from './refusal-detail.js'

/**
 * `fastify-mongo-crud import <router> <file>`: checks the API file as `check` does, reads the
 * documents, opens the database `serve` would, builds the API on it as `serve` does (its indexes
 * created), and creates every document with the router's own create (its service), all in one
 * transaction: written all together, or, if any is refused, none. Each refusal is printed with its
 * line (`err`), then a CommandFailure says nothing was imported.
 */
export async function importDocuments(command: ImportCommand, env: NodeJS.ProcessEnv, log: (line: string) => void = console.log, err: (line: string) => void = console.error): Promise<void> {
  const loaded = await verifyApiFileAt(command.file)
  const name = findRouter(loaded.api, command.router)
  const lines = await readDocuments(command.documents)
  const choice = chooseDatabase(loaded, command.data, env)
  if (choice.engine === 'embedded' && choice.path === undefined) {
    throw new CommandFailure('import: no database keeps the documents (the file names none, and neither --data, MONGODB_URI nor FMC_DATA_DIR is set): into memory they would be lost at exit')
  }
  const database = await openDatabase(choice)
  let outcome: CreateOutcome
  try {
    const app = await buildApiApp(forImport(loaded, name), database.db, { env, fastify: { logger: false } })
    try {
      outcome = await createAll(app, loaded.api, name, lines, database.db)
    } finally {
      await app.close()
    }
  } finally {
    await database.close()
  }
  for (const refusal of outcome.refusals) err(`${command.documents}:${refusal.line}: ${refusal.detail}`)
  if (outcome.endedAt !== undefined) err(`(after line ${outcome.endedAt}, the database had ended the transaction: later lines were checked against the model only)`)
  const count = (n: number) => `${n} document${n === 1 ? '' : 's'}`
  if (outcome.refusals.length > 0) throw new CommandFailure(`${outcome.refusals.length} of ${count(lines.length)} refused: nothing was imported. Fix them and run import again`)
  log(`fastify-mongo-crud: imported ${count(lines.length)} into ${name} (${database.description})`)
}

/**
 * The file as import builds it: the router imported into without its scope and populates. An import
 * has no caller: each document belongs to the scope value it carries, and may carry its own `id`
 * (a scope's reason to refuse client ids is callers telling ids of other scopes apart). Populates
 * only shape what a create answers, which an import does not show.
 */
function forImport(loaded: LoadedApiFile, name: string): LoadedApiFile {
  const { scope: _, populates: __, ...router } = loaded.api.routers[name]!
  return { ...loaded, api: { ...loaded.api, routers: { ...loaded.api.routers, [name]: router } } }
}

async function createAll(app: FastifyInstance, api: ApiFile, name: string, lines: readonly DocumentLine[], db: DriverDb): Promise<CreateOutcome> {
  // Routers register in file order, each adding its service once: the router's service is the one at its place.
  const serviceName = appRegistry(app).service('').names[Object.keys(api.routers).indexOf(name)]!
  const service = crudService(app, serviceName)
  // What the service reads of a request: no scope is left to compute; the log and the (empty) path parameters.
  const request = { headers: {}, params: {}, query: {}, log: app.log } as unknown as FastifyRequest
  const scopeField = api.routers[name]!.scope?.field
  const unique = uniqueFields(api, api.routers[name]!.collection)
  return createAllOrNothing(
    db,
    lines,
    async (document) => {
      if (scopeField !== undefined && !(typeof document === 'object' && document !== null && Object.hasOwn(document, scopeField))) throw new MissingScopeField(scopeField)
      await service.create({ request, body: document as never })
    },
    (error) => (error instanceof MissingScopeField ? error.message : refusalDetail(error, unique))
  )
}

/** A document of a scoped router without its scope field: the router's scope would fill it from the caller, which an import has not. */
class MissingScopeField extends Error {
  constructor(field: string) {
    super(`${field}: Field required (the router's scope fills it from the caller on a POST; an import has none)`)
  }
}
