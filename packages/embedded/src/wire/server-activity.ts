import type { Socket } from 'node:net'
import { BSON } from 'mongodb'
import { bsonSizeWithin } from '../bson/bson-codec.js'
import type { Document } from '../document.js'
import { ConnectionAuth } from './auth/connection-auth.js'
import { isLoopbackHost } from './loopback-host.js'
import { interrupted } from './wire-error.js'

/** One client connection as commands see it: who it is, from where, logged in as whom. */
export interface Peer {
  id: number
  /** `address:port` of the client. */
  remote: string
  /** The client connects from this machine (the localhost exception applies to it alone). */
  loopback: boolean
  auth: ConnectionAuth
  connectedAt: Date
  /** The `client` document of its handshake (driver, application name), once seen. */
  clientMetadata?: Document
  /** Bytes read from and written to its socket so far. */
  bytes(): { in: number, out: number }
}

/** A command running now, as `currentOp` lists it and `killOp` stops it. */
export interface RunningOp {
  opid: number
  peer: Peer
  name: string
  ns: string
  command: Document
  startedAt: number
  /** Rejects with Interrupted (11601) once the op is killed; the command's reply is that error. */
  interrupted: Promise<never>
  /** The error `interrupted` rejected with, once killed. */
  killedWith?: Error
  kill(): void
}

/** mongod's opcounters: documents inserted, finds, updates and deletes (per statement), getMores, other commands. */
export interface OpCounters {
  insert: number
  query: number
  update: number
  delete: number
  getmore: number
  command: number
}

/** Past this many characters a command shown by `currentOp` is truncated, as mongod truncates at 1 KB. */
const MAX_SHOWN_COMMAND = 1024
/** Past this many bytes of BSON a command is not turned into text at all. */
const MAX_MEASURED_COMMAND = 64 * 1024
/** Fields whose values are secrets: shown as `xxx`, as mongod redacts them. */
const SECRET_FIELDS = new Set(['pwd', 'payload', 'speculativeAuthenticate'])

/**
 * What the wire server is doing and has done since it started: its connections, the commands running
 * now, and the counters `serverStatus` reports (connections, opcounters, network bytes).
 */
export class ServerActivity {
  readonly startedAt = Date.now()
  readonly peers = new Map<number, Peer>()
  readonly opcounters: OpCounters = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 }
  totalConnections = 0
  requests = 0
  readonly #closedBytes = { in: 0, out: 0 }
  readonly #ops = new Map<number, RunningOp>()
  #nextOpId = 1

  /** A connection accepted: its peer, listed until `disconnect`. */
  connect(id: number, socket: Socket): Peer {
    const address = socket.remoteAddress ?? ''
    const peer: Peer = {
      id,
      remote: `${address.includes(':') ? `[${address}]` : address}:${socket.remotePort}`,
      loopback: address !== '' && isLoopbackHost(address),
      auth: new ConnectionAuth(),
      connectedAt: new Date(),
      bytes: () => ({ in: socket.bytesRead, out: socket.bytesWritten }),
    }
    this.peers.set(id, peer)
    this.totalConnections++
    return peer
  }

  disconnect(peer: Peer): void {
    if (!this.peers.delete(peer.id)) return
    const { in: read, out: written } = peer.bytes()
    this.#closedBytes.in += read
    this.#closedBytes.out += written
  }

  /** Bytes in and out over every connection since the server started. */
  network(): { bytesIn: number, bytesOut: number, numRequests: number } {
    let bytesIn = this.#closedBytes.in
    let bytesOut = this.#closedBytes.out
    for (const peer of this.peers.values()) {
      const { in: read, out: written } = peer.bytes()
      bytesIn += read
      bytesOut += written
    }
    return { bytesIn, bytesOut, numRequests: this.requests }
  }

  /** A command starts: counted, and listed until `end`. */
  begin(peer: Peer, name: string, command: Document, db: string): RunningOp {
    this.requests++
    this.#count(name, command)
    let reject: (error: Error) => void = () => undefined
    const interruptedBy = new Promise<never>((_, rejectWith) => {
      reject = rejectWith
    })
    // Awaited only while the command runs; a kill after that has nobody to tell.
    interruptedBy.catch(() => undefined)
    const op: RunningOp = {
      opid: this.#nextOpId++,
      peer,
      name,
      ns: namespaceOf(name, command, db),
      command,
      startedAt: performance.now(),
      interrupted: interruptedBy,
      kill() {
        op.killedWith ??= interrupted('operation was interrupted')
        reject(op.killedWith)
      },
    }
    this.#ops.set(op.opid, op)
    return op
  }

  end(op: RunningOp): void {
    this.#ops.delete(op.opid)
  }

  running(): RunningOp[] {
    return [...this.#ops.values()]
  }

  find(opid: number): RunningOp | undefined {
    return this.#ops.get(opid)
  }

  /** An op as `currentOp` shows it. */
  describe(op: RunningOp, host: string): Document {
    const micros = Math.round((performance.now() - op.startedAt) * 1000)
    const user = op.peer.auth.user
    return {
      type: 'op',
      host,
      desc: `conn${op.peer.id}`,
      connectionId: op.peer.id,
      client: op.peer.remote,
      ...clientFields(op.peer),
      active: true,
      currentOpTime: new Date().toISOString(),
      effectiveUsers: user ? [user] : [],
      opid: op.opid,
      secs_running: Math.floor(micros / 1_000_000),
      microsecs_running: micros,
      op: opType(op.name),
      ns: op.ns,
      command: shownCommand(op.command),
    }
  }

  /** An idle connection as `currentOp` shows it with `$all` / `idleConnections`. */
  describeIdle(peer: Peer, host: string): Document {
    const user = peer.auth.user
    return { type: 'op', host, desc: `conn${peer.id}`, connectionId: peer.id, client: peer.remote, ...clientFields(peer), active: false, currentOpTime: new Date().toISOString(), effectiveUsers: user ? [user] : [] }
  }

  #count(name: string, command: Document): void {
    const counters = this.opcounters
    if (name === 'insert') counters.insert += Array.isArray(command['documents']) ? command['documents'].length : 1
    else if (name === 'find') counters.query++
    else if (name === 'update') counters.update += Array.isArray(command['updates']) ? command['updates'].length : 1
    else if (name === 'delete') counters.delete += Array.isArray(command['deletes']) ? command['deletes'].length : 1
    else if (name === 'getMore') counters.getmore++
    else counters.command++
  }
}

function clientFields(peer: Peer): Document {
  const metadata = peer.clientMetadata
  if (metadata === undefined) return {}
  const appName = (metadata['application'] as Document | undefined)?.['name']
  return typeof appName === 'string' ? { appName, clientMetadata: metadata } : { clientMetadata: metadata }
}

/** mongod's `op` of a command: the CRUD ones by their kind, every other `command`. */
function opType(name: string): string {
  switch (name) {
    case 'insert':
      return 'insert'
    case 'update':
      return 'update'
    case 'delete':
      return 'remove'
    case 'find':
      return 'query'
    case 'getMore':
      return 'getmore'
    default:
      return 'command'
  }
}

/** `<db>.<collection>` for a command on a collection, `<db>.$cmd` otherwise. */
function namespaceOf(name: string, command: Document, db: string): string {
  const target = name === 'getMore' ? command['collection'] : command[name]
  return typeof target === 'string' && target !== '' ? `${db}.${target}` : `${db}.$cmd`
}

/** The command without its secrets, truncated past 1 KB of text as mongod truncates it (`$truncated`). */
function shownCommand(command: Document): Document {
  const shown: Document = {}
  for (const [field, value] of Object.entries(command)) shown[field] = SECRET_FIELDS.has(field) ? 'xxx' : value
  // A large command (an insert of 40 MB) is not turned into text whole to show its first kilobyte.
  const size = bsonSizeWithin(shown, MAX_MEASURED_COMMAND)
  if (size > MAX_MEASURED_COMMAND) return { $truncated: `a ${Object.keys(command)[0]} command of more than ${MAX_MEASURED_COMMAND} bytes` }
  const text = BSON.EJSON.stringify(shown, { relaxed: true })
  return text.length <= MAX_SHOWN_COMMAND ? shown : { $truncated: `${text.slice(0, MAX_SHOWN_COMMAND)}...` }
}
