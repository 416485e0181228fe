import type { Document } from '../../document.js'
import type { EmbeddedCollection } from '../../embedded-collection.js'
import type { EmbeddedDb } from '../../embedded-db.js'
import type { Security } from '../auth/authorize.js'
import type { CursorRegistry } from '../cursor-registry.js'
import type { ReplicaSet } from '../replica-set.js'
import type { Peer, ServerActivity } from '../server-activity.js'
import { badValue, invalidNamespace, typeMismatch } from '../wire-error.js'

/** What a command handler works with. */
export interface CommandContext {
  /** The database named by the request's `$db`. */
  db: EmbeddedDb
  dbName: string
  /** The engine's default database, through which every other one is reached. */
  engine: EmbeddedDb
  cursors: CursorRegistry
  connectionId: number
  maxMessageBytes: number
  /** The connection the command came on: who is logged in on it. */
  peer: Peer
  server: ServerInfo
}

/** The server as the commands that describe it see it (serverStatus, currentOp, the user commands). */
export interface ServerInfo {
  security: Security
  activity: ServerActivity
  /** `host:port` the server listens on, as `serverStatus` and explain's `serverInfo` name it. */
  address: string
  maxConnections: number
  /** How connections are encrypted: `disabled` or `requireTLS`. */
  tlsMode: 'disabled' | 'requireTLS'
  /** Under `--replSet`: the single-node replica set the server presents; undefined for a standalone. */
  replicaSet: ReplicaSet | undefined
}

export type CommandHandler = (command: Document, context: CommandContext) => Promise<Document> | Document

/** The collection named by the command's first field (`{ find: "users" }`). */
export function targetCollection(command: Document, name: string, context: CommandContext): EmbeddedCollection {
  return context.db.collection(collectionName(command[name], name))
}

export function collectionName(value: unknown, field: string): string {
  if (typeof value !== 'string') throw typeMismatch(`collection name has invalid type ${typeName(value)} (field '${field}')`)
  if (value === '') throw invalidNamespace('Invalid namespace specified: collection name is empty')
  return value
}

export function optionalDocument(command: Document, field: string): Document | undefined {
  const value = command[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) throw typeMismatch(`'${field}' must be an object, not ${typeName(value)}`)
  return value as Document
}

export function optionalArray(command: Document, field: string): Document[] | undefined {
  const value = command[field]
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value)) throw typeMismatch(`'${field}' must be an array, not ${typeName(value)}`)
  return value as Document[]
}

export function requiredArray(command: Document, field: string): Document[] {
  const value = optionalArray(command, field)
  if (value === undefined) throw badValue(`'${field}' is required`)
  return value
}

/** A non-negative integer field (Int32, Int64 and whole doubles all arrive as numbers). */
export function optionalCount(command: Document, field: string): number | undefined {
  const value = toNumber(command[field])
  if (value === undefined) return undefined
  if (!Number.isInteger(value) || value < 0) throw badValue(`'${field}' must be a non-negative integer, got ${value}`)
  return value
}

/** A number field that may be negative (`limit` of find and count). */
export function optionalNumber(command: Document, field: string): number | undefined {
  const value = toNumber(command[field])
  if (value !== undefined && !Number.isFinite(value)) throw badValue(`'${field}' must be a finite number`)
  return value
}

function toNumber(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number') return value
  if (typeof value === 'bigint') return Number(value)
  const bsonType = (value as { _bsontype?: unknown })._bsontype
  if (bsonType === 'Long' || bsonType === 'Int32' || bsonType === 'Double') return Number(value)
  throw typeMismatch(`expected a number, got ${typeName(value)}`)
}

/** Options a command accepts only in their default form: anything else would change results. */
export function refuseOptions(command: Document, fields: string[]): void {
  for (const field of fields) {
    const value = command[field]
    if (value === undefined || value === null || value === false) continue
    if (field === 'collation' && (value as Document)['locale'] === 'simple') continue
    throw badValue(`'${field}' is not supported by the embedded engine`)
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  const bsonType = (value as { _bsontype?: unknown } | undefined)?._bsontype
  return typeof bsonType === 'string' ? bsonType.toLowerCase() : typeof value
}
