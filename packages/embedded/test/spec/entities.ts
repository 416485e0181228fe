import { type ChangeStream, ClientSession, Db, type Document, MongoClient, type MongoClientOptions } from 'mongodb'
import type { SessionIds } from './match.ts'
import { type ObservedEvent, observeCommands } from './observe-commands.ts'
import { UnifiedTestFailure } from './unified-test-failure.ts'

/** What an entity of the format may be: a driver's client, database, collection, session or change stream, or any result saved with `saveResultAsEntity`. */
export type Entity = unknown

/**
 * The entity map of one test (the format's "Entity Map"), with what the test must undo at its end:
 * the clients to close, the sessions to end, the change streams to close, the fail points to turn
 * off, and whether a transaction was started (then the server's open transactions are killed).
 */
export class EntityMap {
  readonly #entities = new Map<string, Entity>()
  /** Each session entity's `lsid`, kept once the session has ended too (`$$sessionLsid`). */
  readonly sessionIds: Map<string, { id: unknown }> & SessionIds = new Map()
  readonly events = new Map<string, ObservedEvent[]>()
  readonly clients: MongoClient[] = []
  readonly sessions: ClientSession[] = []
  readonly changeStreams: ChangeStream[] = []
  readonly failPoints: { client: MongoClient, name: string }[] = []
  startedTransaction = false

  /** The suite's connection string, for client entities; the internal client reads for assertions. */
  constructor(readonly uri: string, readonly internal: MongoClient) {}

  set(id: string, entity: Entity): void {
    this.#entities.set(id, entity)
  }

  get(id: string): Entity {
    if (!this.#entities.has(id)) throw new UnifiedTestFailure('runner', `no entity ${id}`)
    return this.#entities.get(id)
  }

  client(id: string): MongoClient {
    const found = this.get(id)
    if (!(found instanceof MongoClient)) throw new UnifiedTestFailure('runner', `${id} is not a client`)
    return found
  }

  session(id: string): ClientSession {
    const found = this.get(id)
    if (!(found instanceof ClientSession)) throw new UnifiedTestFailure('runner', `${id} is not a session`)
    return found
  }

  /** Ends the sessions, closes the change streams and the clients (errors ignored: the test's verdict is already made). */
  async close(): Promise<void> {
    await Promise.all(this.changeStreams.map((stream) => stream.close().catch(() => undefined)))
    await Promise.all(this.sessions.map((session) => session.endSession().catch(() => undefined)))
    await Promise.all(this.clients.map((client) => client.close().catch(() => undefined)))
  }
}

/** Creates one entity of `createEntities` (a client, database, collection or session) and adds it to the map. */
export async function createEntity(entity: Document, map: EntityMap): Promise<void> {
  const [kind, spec] = Object.entries(entity)[0] as [string, Document]
  const id = String(spec['id'])
  if (kind === 'client') {
    map.set(id, await createClient(id, spec, map))
    return
  }
  if (kind === 'database') {
    map.set(id, map.client(String(spec['client'])).db(String(spec['databaseName']), spec['databaseOptions'] as Document | undefined))
    return
  }
  if (kind === 'collection') {
    const db = map.get(String(spec['database']))
    if (!(db instanceof Db)) throw new UnifiedTestFailure('runner', `collection ${id}: no database ${String(spec['database'])}`)
    map.set(id, db.collection(String(spec['collectionName']), spec['collectionOptions'] as Document | undefined))
    return
  }
  if (kind === 'session') {
    const session = map.client(String(spec['client'])).startSession(spec['sessionOptions'] as Document | undefined)
    map.sessions.push(session)
    map.sessionIds.set(id, { id: session.id?.['id'] })
    map.set(id, session)
    return
  }
  throw new UnifiedTestFailure('runner', `the runner does not create ${kind} entities`)
}

async function createClient(id: string, spec: Document, map: EntityMap): Promise<MongoClient> {
  const observe = (spec['observeEvents'] as string[] | undefined) ?? []
  const unsupported = observe.filter((name) => !name.startsWith('command'))
  if (unsupported.length > 0) throw new UnifiedTestFailure('runner', `the runner does not observe ${unsupported.join(', ')}`)
  // forceServerObjectId: the driver then sends `_id: null` as written instead of replacing it with a
  // new ObjectId, so what an insert stores is the server's decision (the create-null-ids tests).
  const options: MongoClientOptions = {
    serverSelectionTimeoutMS: 60_000,
    forceServerObjectId: true,
    monitorCommands: observe.length > 0,
    ...(spec['uriOptions'] as MongoClientOptions | undefined),
  }
  const client = new MongoClient(map.uri, options)
  map.clients.push(client)
  if (observe.length > 0) map.events.set(id, observeCommands(client, observe, (spec['ignoreCommandMonitoringEvents'] as string[] | undefined) ?? [], spec['observeSensitiveCommands'] === true))
  // connect() selects a server by the client's read preference, and a single-member set has no
  // secondary to select: such a client connects on its first operation, which names its own.
  if ((spec['uriOptions'] as Document | undefined)?.['readPreference'] === undefined) await client.connect()
  return client
}
