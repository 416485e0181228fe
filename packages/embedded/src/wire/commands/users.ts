import { type Document, isNonArrayObject } from '../../document.js'
import { isNumericObject } from '../../numbers/numeric-type.js'
import { allows } from '../auth/authorize.js'
import type { UserName } from '../auth/connection-auth.js'
import { privilegesOf, type RoleGrant, roleExists } from '../auth/roles.js'
import { deriveCredentials, SCRAM_SHA_256 } from '../auth/scram-sha-256.js'
import type { StoredUser } from '../auth/user-store.js'
import { badValue, roleNotFound, typeMismatch, unauthorized, userNotFound } from '../wire-error.js'
import type { CommandContext, CommandHandler } from './command-context.js'

/** Fields of the user commands that are not the user's own (generic command fields). */
const GENERIC_FIELDS = new Set(['$db', 'lsid', '$clusterTime', '$readPreference', 'writeConcern', 'comment', 'apiVersion', 'apiStrict', 'apiDeprecationErrors', 'maxTimeMS'])
const CREATE_FIELDS = new Set(['createUser', 'pwd', 'roles', 'customData', 'mechanisms', 'digestPassword', 'authenticationRestrictions'])
const UPDATE_FIELDS = new Set(['updateUser', 'pwd', 'roles', 'customData', 'mechanisms', 'digestPassword', 'authenticationRestrictions'])

/**
 * `createUser`: a user of the request's database, with a SCRAM-SHA-256 login (the password is
 * salted and stretched, then forgotten) and built-in roles (roles.ts), stored in `admin.system.users`.
 */
const createUser: CommandHandler = async (command, context) => {
  const db = context.dbName
  checkFields(command, CREATE_FIELDS)
  const name = userName(command['createUser'], 'createUser')
  if (db === '$external') throw badValue('users of $external are authenticated outside the server; the embedded engine has none')
  if (command['pwd'] === undefined) throw badValue("Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db")
  checkMechanisms(command)
  const roles = roleList(command['roles'], db)
  const credentials = await deriveCredentials(password(command['pwd']))
  const customData = optionalObject(command, 'customData')
  await context.server.security.users.create({ user: name, db, credentials: { [SCRAM_SHA_256]: credentials }, roles, ...(customData ? { customData } : {}) })
  return { ok: 1 }
}

/** `updateUser`: a new password, roles or custom data (those given replace the old). */
const updateUser: CommandHandler = async (command, context) => {
  const db = context.dbName
  checkFields(command, UPDATE_FIELDS)
  const name = userName(command['updateUser'], 'updateUser')
  if (command['pwd'] === undefined && command['roles'] === undefined && command['customData'] === undefined) throw badValue('Must specify at least one field to update in updateUser')
  checkMechanisms(command)
  const roles = command['roles'] === undefined ? undefined : roleList(command['roles'], db)
  const credentials = command['pwd'] === undefined ? undefined : await deriveCredentials(password(command['pwd']))
  const customData = optionalObject(command, 'customData')
  const updated = await context.server.security.users.update(db, name, (user) => ({
    ...user,
    ...(credentials ? { credentials: { [SCRAM_SHA_256]: credentials } } : {}),
    ...(roles ? { roles } : {}),
    ...(customData ? { customData } : {}),
  }))
  if (!updated) throw userNotFound(`Could not find user "${name}" for db "${db}"`)
  return { ok: 1 }
}

const dropUser: CommandHandler = async (command, context) => {
  const db = context.dbName
  const name = userName(command['dropUser'], 'dropUser')
  const removed = await context.server.security.users.remove((user) => user.db === db && user.user === name)
  if (removed === 0) throw userNotFound(`User '${name}@${db}' not found`)
  return { ok: 1 }
}

const dropAllUsersFromDatabase: CommandHandler = async (_command, context) => {
  const db = context.dbName
  return { n: await context.server.security.users.remove((user) => user.db === db), ok: 1 }
}

/**
 * `usersInfo`: `1` (the database's users), a name, `{ user, db }`, a list of those, or
 * `{ forAllDBs: true }`. A user may always see itself; others need `viewUser` on their database.
 * `showCredentials` adds the stored SCRAM keys (never a password: none is kept), `showPrivileges`
 * what the roles allow.
 */
const usersInfo: CommandHandler = (command, context) => {
  const db = context.dbName
  const users = context.server.security.users
  const wanted = command['usersInfo']
  let found: StoredUser[]
  if (isNonArrayObject(wanted) && wanted['forAllDBs'] === true) {
    // A database no name can spell: only a role on every database grants `viewUser` there.
    mayView(context, '\0every database', undefined)
    found = users.list()
  } else if (isOne(wanted)) {
    mayView(context, db, undefined)
    found = users.list().filter((user) => user.db === db)
  } else {
    const names = (Array.isArray(wanted) ? wanted : [wanted]).map((entry) => nameOf(entry, db))
    for (const name of names) mayView(context, name.db, name)
    found = names.flatMap((name) => users.get(name.db, name.user) ?? [])
  }
  const showCredentials = command['showCredentials'] === true
  const showPrivileges = command['showPrivileges'] === true
  const showCustomData = command['showCustomData'] !== false
  return {
    users: found.map((user) => {
      const shown: Document = { _id: user._id, userId: user.userId, user: user.user, db: user.db, roles: user.roles.map(({ role, db }) => ({ role, db })), mechanisms: [SCRAM_SHA_256] }
      if (showCustomData && user.customData !== undefined) shown['customData'] = user.customData
      if (showCredentials) shown['credentials'] = user.credentials
      if (showPrivileges) {
        shown['inheritedRoles'] = shown['roles']
        shown['inheritedPrivileges'] = privilegesOf(user.roles)
      }
      return shown
    }),
    ok: 1,
  }
}

/** Refuses (13) to show a user other than the connection's own without `viewUser` on its database. */
function mayView(context: CommandContext, db: string, name: UserName | undefined): void {
  const self = context.peer.auth.user
  if (name !== undefined && self !== undefined && self.user === name.user && self.db === name.db) return
  if (!allows(context.server.security, context.peer, { db, action: 'viewUser' })) throw unauthorized(`not authorized on ${db === '\0every database' ? 'admin' : db} to execute command { usersInfo: ... }`)
}

/** `usersInfo: 1`, whatever numeric type the client sent it as. */
function isOne(value: unknown): boolean {
  return typeof value === 'number' ? value === 1 : isNumericObject(value) && Number(value) === 1
}

function nameOf(entry: unknown, db: string): UserName {
  if (typeof entry === 'string') return { user: entry, db }
  if (isNonArrayObject(entry) && typeof entry['user'] === 'string' && typeof entry['db'] === 'string') return { user: entry['user'], db: entry['db'] }
  throw badValue('User name must be either a string or an object with "user" and "db" fields')
}

function userName(value: unknown, field: string): string {
  if (typeof value !== 'string') throw typeMismatch(`'${field}' must be a string, the user's name`)
  if (value === '' || value.includes('\0')) throw badValue('User names must be non-empty and cannot contain NUL')
  return value
}

function password(value: unknown): string {
  if (typeof value !== 'string') throw typeMismatch("'pwd' must be a string")
  if (value === '') throw badValue('Password cannot be empty')
  return value
}

/** Roles as `createUser` takes them: a name (a role of the command's database) or `{ role, db }`; each must exist (31). */
function roleList(value: unknown, db: string): RoleGrant[] {
  if (!Array.isArray(value)) throw typeMismatch("'roles' must be an array")
  return value.map((entry): RoleGrant => {
    let grant: RoleGrant
    if (typeof entry === 'string') grant = { role: entry, db }
    else if (isNonArrayObject(entry) && typeof entry['role'] === 'string' && typeof entry['db'] === 'string') grant = { role: entry['role'], db: entry['db'] }
    else throw badValue('a role must be a name or an object with "role" and "db" fields')
    if (!roleExists(grant)) throw roleNotFound(`Could not find role: ${grant.role}@${grant.db}`)
    return grant
  })
}

/** Only SCRAM-SHA-256, from the password itself (the server digests it). */
function checkMechanisms(command: Document): void {
  const mechanisms = command['mechanisms']
  if (mechanisms !== undefined && (!Array.isArray(mechanisms) || mechanisms.some((m) => m !== SCRAM_SHA_256))) {
    throw badValue(`the embedded engine stores ${SCRAM_SHA_256} credentials only: 'mechanisms' may list only "${SCRAM_SHA_256}"`)
  }
  if (command['digestPassword'] === false) throw badValue('Use of SCRAM-SHA-256 requires undigested passwords')
  const restrictions = command['authenticationRestrictions']
  if (Array.isArray(restrictions) && restrictions.length > 0) throw badValue("'authenticationRestrictions' is not supported by the embedded engine")
}

function checkFields(command: Document, own: ReadonlySet<string>): void {
  const unknown = Object.keys(command).filter((field) => !own.has(field) && !GENERIC_FIELDS.has(field))
  if (unknown.length > 0) throw badValue(`unknown field(s) ${unknown.join(', ')}`)
}

function optionalObject(command: Document, field: string): Document | undefined {
  const value = command[field]
  if (value === undefined) return undefined
  if (!isNonArrayObject(value)) throw typeMismatch(`'${field}' must be an object`)
  return value
}

export const USER_COMMANDS: Record<string, CommandHandler> = { createUser, updateUser, dropUser, dropAllUsersFromDatabase, usersInfo }
