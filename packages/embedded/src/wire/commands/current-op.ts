import { type Document, isNonArrayObject } from '../../document.js'
import { compileFilter } from '../../query/compile-filter.js'
import { allows } from '../auth/authorize.js'
import type { Peer, RunningOp } from '../server-activity.js'
import { failedToParse, invalidNamespace, typeMismatch, unauthorized } from '../wire-error.js'
import type { CommandContext, CommandHandler } from './command-context.js'

/** What a listing shows: every user's operations or the caller's own, and idle connections too or not. */
interface Listing {
  allUsers: boolean
  idleConnections: boolean
}

/**
 * The commands running now (and with `idleConnections` the connections running none), as mongod's
 * `currentOp` shows them: `opid`, `connectionId`, `client`, `appName`, `op`, `ns`, `command` (its
 * password and SASL payload shown as `xxx`, past 1 KB `$truncated`), `secs_running`,
 * `microsecs_running`, `effectiveUsers`. The listing itself is one of them.
 */
function listOperations(context: CommandContext, listing: Listing): Document[] {
  const { activity, address } = context.server
  const own = (peer: Peer) => listing.allUsers || sameUser(peer, context.peer)
  const ops = activity
    .running()
    .filter((op) => own(op.peer))
    .map((op) => activity.describe(op, address))
  if (listing.idleConnections) {
    const busy = new Set(activity.running().map((op) => op.peer.id))
    for (const peer of activity.peers.values()) if (!busy.has(peer.id) && own(peer)) ops.push(activity.describeIdle(peer, address))
  }
  return ops
}

/** `currentOp`: `$all` adds idle connections, `$ownOps` keeps the caller's own; every other field filters (`{ op: 'query' }`). */
const currentOp: CommandHandler = (command, context) => {
  const filter: Document = {}
  for (const [field, value] of Object.entries(command)) {
    if (field === 'currentOp' || field === '$all' || field === '$ownOps' || field.startsWith('$') || field === 'lsid' || field === 'comment') continue
    filter[field] = value
  }
  const matches = compileFilter(filter)
  const inprog = listOperations(context, { allUsers: command['$ownOps'] !== true, idleConnections: command['$all'] === true }).filter((op) => matches(op))
  return { inprog, ok: 1 }
}

const STAGE_OPTIONS = new Set(['allUsers', 'idleConnections', 'idleCursors', 'idleSessions', 'localOps', 'truncateOps', 'backtrace', 'targetAllNodes'])

/**
 * `$currentOp`, the first stage of an aggregate of `admin` (mongosh's `db.currentOp()`): the listing,
 * for later stages to filter. `allUsers` (default false) and `idleConnections` as mongod's; the other
 * options are taken and change nothing (no sessions or cursors are listed).
 */
export function currentOpStage(spec: unknown, context: CommandContext): Document[] {
  if (context.dbName !== 'admin') throw invalidNamespace("$currentOp must be run against the 'admin' database with {aggregate: 1}")
  if (!isNonArrayObject(spec)) throw failedToParse('$currentOp options must be specified in an object')
  const unknown = Object.keys(spec).find((option) => !STAGE_OPTIONS.has(option))
  if (unknown !== undefined) throw failedToParse(`Unrecognized option '${unknown}' in $currentOp stage.`)
  return listOperations(context, { allUsers: spec['allUsers'] === true, idleConnections: spec['idleConnections'] === true })
}

/**
 * `killOp`: interrupts a running command. Its client gets Interrupted (11601) at once; what the
 * engine is already doing for it finishes unseen, and a cursor it opens is closed unread. A user may
 * kill its own operations, everyone's with `killop` (root). An opid that is not running is not an
 * error, as on mongod.
 */
const killOp: CommandHandler = (command, context) => {
  const opid = Number(command['op'])
  if (command['op'] === undefined || !Number.isInteger(opid)) throw typeMismatch("Did not provide \"op\" field, or it is not an integer")
  const op: RunningOp | undefined = context.server.activity.find(opid)
  if (op !== undefined) {
    if (!sameUser(op.peer, context.peer) && !allows(context.server.security, context.peer, { cluster: true, action: 'killop' })) {
      throw unauthorized('not authorized on admin to execute command { killOp: 1 }')
    }
    op.kill()
  }
  return { info: 'attempting to kill op', ok: 1 }
}

function sameUser(a: Peer, b: Peer): boolean {
  const ua = a.auth.user
  const ub = b.auth.user
  return ua?.user === ub?.user && ua?.db === ub?.db
}

export const CURRENT_OP_COMMANDS: Record<string, CommandHandler> = { currentOp, killOp }
