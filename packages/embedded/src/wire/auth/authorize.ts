import { type Document, isNonArrayObject } from '../../document.js'
import type { Peer } from '../server-activity.js'
import { unauthorized } from '../wire-error.js'
import { type DatabaseAction, grants, type Privilege, type RoleGrant } from './roles.js'
import { USERS_DB, type UserStore } from './user-store.js'

/** Whether the server checks who runs each command (`--auth`), and where its users are. */
export interface Security {
  enabled: boolean
  users: UserStore
}

/**
 * What a command needs: nothing (the handshake and the login), a logged-in user of any role (the
 * command checks the rest itself, or has nothing to protect), or privileges.
 */
type Need = 'none' | 'authenticated' | Privilege[]
type Rule = (command: Document, db: string) => Need

const none: Rule = () => 'none'
const authenticated: Rule = () => 'authenticated'
const onCollection = (action: DatabaseAction): Rule => (command, db) => [{ db, collection: firstValue(command), action }]
const onDatabase = (action: DatabaseAction): Rule => (_command, db) => [{ db, action }]
const onCluster = (action: Extract<Privilege, { cluster: true }>['action']): Rule => () => [{ cluster: true, action }]

/**
 * Every command the server answers, and what it needs, as mongod's privilege checks: the CRUD
 * commands the matching actions on their collection, the others theirs. A command missing here
 * needs `root` (the `configureFailPoint` of a new command must be a deliberate choice), and
 * authorize-table.test.ts checks the table names every command.
 */
const RULES: Record<string, Rule> = {
  // The handshake, the login and diagnostics mongod answers before authentication.
  hello: none,
  isMaster: none,
  ismaster: none,
  ping: none,
  buildInfo: none,
  buildinfo: none,
  connectionStatus: none,
  whatsmyuri: none,
  saslStart: none,
  saslContinue: none,
  authenticate: none,
  logout: none,
  endSessions: none,
  getParameter: onCluster('getParameter'),
  getLog: onCluster('getLog'),
  getCmdLineOpts: onCluster('getCmdLineOpts'),
  hostInfo: onCluster('hostInfo'),
  configureFailPoint: onCluster('configureFailPoint'),
  find: onCollection('find'),
  count: onCollection('find'),
  distinct: onCollection('find'),
  // A cursor of a command (`$cmd.listCollections`, `$cmd.aggregate`) was opened by a user allowed to run
  // that command, and only that user may continue it (cursor-owners.ts); a collection's cursor needs `find` on it.
  getMore: (command, db) => {
    const collection = stringOr(command['collection'])
    return collection?.startsWith('$cmd.') ? 'authenticated' : [{ db, collection, action: 'find' }]
  },
  killCursors: onDatabase('killCursors'),
  insert: onCollection('insert'),
  update: (command, db) => {
    const updates = Array.isArray(command['updates']) ? (command['updates'] as Document[]) : []
    const upserts = updates.some((statement) => isNonArrayObject(statement) && statement['upsert'] === true)
    return writePrivileges(db, firstValue(command), upserts ? ['update', 'insert'] : ['update'])
  },
  delete: onCollection('remove'),
  findAndModify: findAndModifyPrivileges,
  findandmodify: findAndModifyPrivileges,
  aggregate: (command, db) => aggregatePrivileges(command, db),
  listIndexes: onCollection('listIndexes'),
  createIndexes: onCollection('createIndex'),
  dropIndexes: onCollection('dropIndex'),
  listCollections: onDatabase('listCollections'),
  create: (command, db) => {
    const needs: Privilege[] = [{ db, collection: firstValue(command), action: 'createCollection' }]
    if (typeof command['viewOn'] === 'string') needs.push({ db, collection: command['viewOn'], action: 'find' })
    return needs
  },
  drop: onCollection('dropCollection'),
  collMod: onCollection('collMod'),
  // Full namespaces, on admin: the source's documents are read and dropped, the target's written.
  renameCollection: (command) => {
    const [fromDb, from] = namespaceParts(command['renameCollection'])
    const [toDb, to] = namespaceParts(command['to'])
    return [
      { db: fromDb, collection: from, action: 'find' },
      { db: fromDb, collection: from, action: 'dropCollection' },
      { db: toDb, collection: to, action: 'insert' },
      { db: toDb, collection: to, action: 'createIndex' },
      { db: toDb, collection: to, action: 'createCollection' },
    ]
  },
  dropDatabase: onDatabase('dropDatabase'),
  // Lists the databases the user has a role on, all of them with a role that may list them (collections.ts).
  listDatabases: authenticated,
  commitTransaction: authenticated,
  abortTransaction: authenticated,
  createUser: (command, db) => [{ db, action: 'createUser' }, ...grantPrivileges(command, db)],
  updateUser: (command, db) => {
    const needs: Privilege[] = []
    if (command['pwd'] !== undefined) needs.push({ db, action: 'changePassword' })
    if (command['customData'] !== undefined) needs.push({ db, action: 'changeCustomData' })
    if (command['roles'] !== undefined) needs.push({ db, action: 'revokeRole' }, ...grantPrivileges(command, db))
    return needs.length === 0 ? [{ db, action: 'changeCustomData' }] : needs
  },
  dropUser: onDatabase('dropUser'),
  dropAllUsersFromDatabase: onDatabase('dropUser'),
  // A user may always see itself; the command checks `viewUser` for anyone else (users.ts).
  usersInfo: authenticated,
  serverStatus: onCluster('serverStatus'),
  dbStats: onDatabase('dbStats'),
  collStats: onCollection('collStats'),
  explain: (command, db) => {
    const inner = command['explain']
    if (!isNonArrayObject(inner)) return 'authenticated'
    const name = Object.keys(inner)[0]
    const rule = name === undefined || name === 'explain' ? undefined : RULES[name]
    return rule === undefined ? rootOnly() : rule(inner, db)
  },
  // Its own operations for anyone (`$ownOps`), everyone's with `inprog` (current-op.ts).
  currentOp: (command) => (command['$ownOps'] === true ? 'authenticated' : [{ cluster: true, action: 'inprog' }]),
  // Its own operations for anyone, everyone's with `killop` (current-op.ts).
  killOp: authenticated,
  replSetGetStatus: onCluster('replSetGetStatus'),
  replSetGetConfig: onCluster('replSetGetConfig'),
  replSetInitiate: onCluster('replSetConfigure'),
  killAllSessions: onCluster('killAnySession'),
}

function findAndModifyPrivileges(command: Document, db: string): Privilege[] {
  const change: DatabaseAction[] = command['remove'] === true ? ['remove'] : command['upsert'] === true ? ['update', 'insert'] : ['update']
  return writePrivileges(db, firstValue(command), ['find', ...change])
}

/** The names of the commands in the table (a test checks that every command the server runs has a rule). */
export const AUTHORIZED_COMMANDS: ReadonlySet<string> = new Set(Object.keys(RULES))

/**
 * Refuses the command unless the connection may run it, before it runs: Unauthorized (13), "requires
 * authentication" when nobody is logged in, "not authorized on <db>" when the user's roles lack a
 * privilege. Without `--auth` everything is allowed, as on mongod. With it and no user yet, a
 * loopback connection may create one in `admin` (mongod's localhost exception).
 */
export function authorize(security: Security, peer: Peer, name: string, command: Document, db: string): void {
  if (!security.enabled) return
  const rule = RULES[name]
  const need = rule === undefined ? rootOnly() : rule(command, db)
  if (need === 'none') return
  const user = peer.auth.user
  if (user === undefined) {
    if (name === 'createUser' && db === USERS_DB && peer.loopback && security.users.isEmpty()) return
    throw unauthorized(`Command ${name} requires authentication`)
  }
  if (need === 'authenticated') return
  const roles = rolesOf(security, peer)
  const missing = need.find((privilege) => !grants(roles, privilege))
  if (missing !== undefined) throw unauthorized(`not authorized on ${'cluster' in missing ? 'admin' : missing.db} to execute command { ${name}: ${shown(command[name])} }`)
}

/** The roles of the connection's user now (none once the user was dropped). */
export function rolesOf(security: Security, peer: Peer): RoleGrant[] {
  const user = peer.auth.user
  if (user === undefined) return []
  return security.users.get(user.db, user.user)?.roles ?? []
}

/** Whether the connection may do `privilege` (always without `--auth`). */
export function allows(security: Security, peer: Peer, privilege: Privilege): boolean {
  return !security.enabled || grants(rolesOf(security, peer), privilege)
}

function rootOnly(): Privilege[] {
  return [{ cluster: true, action: 'configureFailPoint' }]
}

function writePrivileges(db: string, collection: string | undefined, actions: DatabaseAction[]): Privilege[] {
  return actions.map((action) => ({ db, collection, action }))
}

/** Granting a role needs `grantRole` on the role's database. */
function grantPrivileges(command: Document, db: string): Privilege[] {
  const roles = Array.isArray(command['roles']) ? command['roles'] : []
  return roles.map((role): Privilege => ({ db: typeof role === 'string' ? db : stringOr((role as Document)?.['db']) ?? db, action: 'grantRole' }))
}

/**
 * An aggregation's privileges: `find` on what it reads (its collection, and what `$lookup`,
 * `$graphLookup`, `$unionWith` and `$facet` read), what `$out` and `$merge` write, and the actions of
 * the stages that are commands in disguise (`$collStats`, `$currentOp`, `$changeStream`).
 */
function aggregatePrivileges(command: Document, db: string): Privilege[] {
  const needs: Privilege[] = []
  const pipeline = Array.isArray(command['pipeline']) ? (command['pipeline'] as unknown[]) : []
  const first = pipeline[0]
  const collection = stringOr(command['aggregate'])
  if (isNonArrayObject(first) && Object.hasOwn(first, '$collStats')) needs.push({ db, collection, action: 'collStats' })
  else if (isNonArrayObject(first) && Object.hasOwn(first, '$currentOp')) {
    if ((first['$currentOp'] as Document | undefined)?.['allUsers'] !== false) needs.push({ cluster: true, action: 'inprog' })
  } else if (isNonArrayObject(first) && Object.hasOwn(first, '$listLocalSessions')) needs.push({ cluster: true, action: 'inprog' })
  else if (isNonArrayObject(first) && Object.hasOwn(first, '$changeStream')) {
    // A collection's stream, a database's (`aggregate: 1`), or every database's: the database '' is
    // one no role is granted on by name, so only the roles on every database (readAnyDatabase...) reach it.
    const everyDatabase = (first['$changeStream'] as Document | undefined)?.['allChangesForCluster'] === true
    const target = everyDatabase ? { db: '' } : { db, collection }
    needs.push({ ...target, action: 'find' }, { ...target, action: 'changeStream' })
  } else if (collection !== undefined) needs.push({ db, collection, action: 'find' })
  stagePrivileges(pipeline, db, needs)
  return needs
}

function stagePrivileges(pipeline: unknown[], db: string, needs: Privilege[]): void {
  for (const stage of pipeline) {
    if (!isNonArrayObject(stage)) continue
    const [name] = Object.keys(stage)
    const spec = name === undefined ? undefined : stage[name]
    if (name === '$lookup' || name === '$graphLookup') {
      const from = (spec as { from?: unknown } | undefined)?.from
      if (typeof from === 'string') needs.push({ db, collection: from, action: 'find' })
      const inner = (spec as Document | undefined)?.['pipeline']
      if (Array.isArray(inner)) stagePrivileges(inner, db, needs)
    } else if (name === '$unionWith') {
      const coll = typeof spec === 'string' ? spec : (spec as Document | undefined)?.['coll']
      if (typeof coll === 'string') needs.push({ db, collection: coll, action: 'find' })
      const inner = (spec as Document | undefined)?.['pipeline']
      if (Array.isArray(inner)) stagePrivileges(inner, db, needs)
    } else if (name === '$facet' && isNonArrayObject(spec)) {
      for (const inner of Object.values(spec)) if (Array.isArray(inner)) stagePrivileges(inner, db, needs)
    } else if (name === '$out') {
      const target = outputTarget(spec, db)
      needs.push({ ...target, action: 'insert' }, { ...target, action: 'remove' })
    } else if (name === '$merge') {
      const target = outputTarget(isNonArrayObject(spec) ? spec['into'] : spec, db)
      needs.push({ ...target, action: 'insert' }, { ...target, action: 'update' })
    }
  }
}

/** `$out: 'coll'`, `$out: { db, coll }`, `$merge: { into: 'coll' | { db, coll } }`. */
function outputTarget(spec: unknown, db: string): { db: string, collection: string | undefined } {
  if (typeof spec === 'string') return { db, collection: spec }
  if (!isNonArrayObject(spec)) return { db, collection: undefined }
  return { db: stringOr(spec['db']) ?? db, collection: stringOr(spec['coll']) }
}

/** `<db>.<collection>` as its two parts (an empty database for anything else: a privilege no role grants). */
function namespaceParts(value: unknown): [string, string | undefined] {
  const namespace = stringOr(value) ?? ''
  const cut = namespace.indexOf('.')
  return cut <= 0 ? ['', undefined] : [namespace.slice(0, cut), namespace.slice(cut + 1)]
}

function firstValue(command: Document): string | undefined {
  const name = Object.keys(command)[0]
  return name === undefined ? undefined : stringOr(command[name])
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return '...'
}
