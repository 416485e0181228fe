/**
 * MongoDB's built-in roles the server knows, as sets of mongod's action names. A role is granted on
 * a database (`{ role: 'readWrite', db: 'app' }`); the `...AnyDatabase` roles and `root` exist on
 * `admin` only and apply to every database, as on mongod. No user-defined roles.
 */

/** An action on a database's collections, as mongod names it. */
export type DatabaseAction =
  | 'find'
  | 'insert'
  | 'update'
  | 'remove'
  | 'changeStream'
  | 'listCollections'
  | 'listIndexes'
  | 'collStats'
  | 'dbStats'
  | 'killCursors'
  | 'createCollection'
  | 'dropCollection'
  | 'createIndex'
  | 'dropIndex'
  | 'dropDatabase'
  | 'collMod'
  | 'createUser'
  | 'dropUser'
  | 'viewUser'
  | 'changePassword'
  | 'changeCustomData'
  | 'grantRole'
  | 'revokeRole'

/** An action on the server itself. */
export type ClusterAction = 'listDatabases' | 'serverStatus' | 'inprog' | 'killop' | 'hostInfo' | 'getLog' | 'getCmdLineOpts' | 'getParameter' | 'configureFailPoint' | 'replSetGetStatus' | 'replSetGetConfig' | 'replSetConfigure' | 'killAnySession'

/** What a command needs: an action on a database (on one collection of it, for `system.users`), or on the server. */
export type Privilege = { db: string, collection?: string | undefined, action: DatabaseAction } | { cluster: true, action: ClusterAction }

/** A role granted to a user, as `createUser` takes it and `usersInfo` shows it. */
export interface RoleGrant {
  role: string
  db: string
}

const READ: readonly DatabaseAction[] = ['find', 'changeStream', 'listCollections', 'listIndexes', 'collStats', 'dbStats', 'killCursors']
const READ_WRITE: readonly DatabaseAction[] = [...READ, 'insert', 'update', 'remove', 'createCollection', 'dropCollection', 'createIndex', 'dropIndex']
// As mongod's dbAdmin: the schema and statistics, not the documents.
const DB_ADMIN: readonly DatabaseAction[] = ['listCollections', 'listIndexes', 'collStats', 'dbStats', 'createCollection', 'dropCollection', 'createIndex', 'dropIndex', 'dropDatabase', 'collMod']
const USER_ADMIN: readonly DatabaseAction[] = ['createUser', 'dropUser', 'viewUser', 'changePassword', 'changeCustomData', 'grantRole', 'revokeRole']
const ALL_DATABASE_ACTIONS: readonly DatabaseAction[] = [...new Set([...READ_WRITE, ...DB_ADMIN, ...USER_ADMIN])]
const ALL_CLUSTER_ACTIONS: readonly ClusterAction[] = ['listDatabases', 'serverStatus', 'inprog', 'killop', 'hostInfo', 'getLog', 'getCmdLineOpts', 'getParameter', 'configureFailPoint', 'replSetGetStatus', 'replSetGetConfig', 'replSetConfigure', 'killAnySession']

interface RoleDefinition {
  /** Applies to every database (defined on `admin` only). */
  anyDatabase: boolean
  actions: ReadonlySet<DatabaseAction>
  cluster: ReadonlySet<ClusterAction>
  /** May read `admin.system.users` (the stored credentials): `root` only. */
  systemUsers: boolean
}

function role(anyDatabase: boolean, actions: readonly DatabaseAction[], cluster: readonly ClusterAction[] = [], systemUsers = false): RoleDefinition {
  return { anyDatabase, actions: new Set(actions), cluster: new Set(cluster), systemUsers }
}

const DATABASE_ROLES: Record<string, RoleDefinition> = {
  read: role(false, READ),
  readWrite: role(false, READ_WRITE),
  dbAdmin: role(false, DB_ADMIN),
  userAdmin: role(false, USER_ADMIN),
  dbOwner: role(false, ALL_DATABASE_ACTIONS),
}

const ADMIN_ROLES: Record<string, RoleDefinition> = {
  readAnyDatabase: role(true, READ, ['listDatabases']),
  readWriteAnyDatabase: role(true, READ_WRITE, ['listDatabases']),
  dbAdminAnyDatabase: role(true, DB_ADMIN, ['listDatabases']),
  userAdminAnyDatabase: role(true, USER_ADMIN, ['listDatabases']),
  root: role(true, ALL_DATABASE_ACTIONS, ALL_CLUSTER_ACTIONS, true),
}

/** The definition of a role granted on `db`, or undefined when there is no such role there (mongod's RoleNotFound). */
function definitionOf(grant: RoleGrant): RoleDefinition | undefined {
  if (Object.hasOwn(DATABASE_ROLES, grant.role)) return DATABASE_ROLES[grant.role]
  if (grant.db === 'admin' && Object.hasOwn(ADMIN_ROLES, grant.role)) return ADMIN_ROLES[grant.role]
  return undefined
}

export function roleExists(grant: RoleGrant): boolean {
  return definitionOf(grant) !== undefined
}

/** Whether any of `roles` grants `privilege`. */
export function grants(roles: readonly RoleGrant[], privilege: Privilege): boolean {
  return roles.some((grant) => {
    const definition = definitionOf(grant)
    if (definition === undefined) return false
    if ('cluster' in privilege) return definition.cluster.has(privilege.action)
    if (privilege.collection === 'system.users' && privilege.db === 'admin' && !definition.systemUsers) return false
    if (!definition.anyDatabase && grant.db !== privilege.db) return false
    return definition.actions.has(privilege.action)
  })
}

/** Whether `roles` grant anything on `db` (the databases `listDatabases` shows a user who may not list them all). */
export function grantsOnDatabase(roles: readonly RoleGrant[], db: string): boolean {
  return roles.some((grant) => {
    const definition = definitionOf(grant)
    return definition !== undefined && (definition.anyDatabase || grant.db === db)
  })
}

/** The privileges of `roles`, as `connectionStatus` shows them with `showPrivileges` (Compass reads them). */
export function privilegesOf(roles: readonly RoleGrant[]): { resource: Record<string, unknown>, actions: string[] }[] {
  const out: { resource: Record<string, unknown>, actions: string[] }[] = []
  for (const grant of roles) {
    const definition = definitionOf(grant)
    if (definition === undefined) continue
    out.push({ resource: { db: definition.anyDatabase ? '' : grant.db, collection: '' }, actions: [...definition.actions].sort() })
    if (definition.cluster.size > 0) out.push({ resource: { cluster: true }, actions: [...definition.cluster].sort() })
  }
  return out
}
