import { Long, ObjectId, type Timestamp } from 'mongodb'
import type { Document } from '../../document.js'
import { alreadyInitializedError, noReplicationEnabledError } from '../../errors.js'
import type { ReplicaSet } from '../replica-set.js'
import { killAllTransactions } from '../transactions.js'
import { unauthorized } from '../wire-error.js'
import type { CommandContext, CommandHandler } from './command-context.js'

/** The set's configuration identity: one per server run, as a set's `replicaSetId` is one per `rs.initiate()`. */
const replicaSetIds = new WeakMap<ReplicaSet, ObjectId>()

/** The replica set of a command of the admin database (as mongod, the replication commands run there only); a standalone answers NoReplicationEnabled (76). */
function replicaSetOf(name: string, context: CommandContext): ReplicaSet {
  if (context.dbName !== 'admin') throw unauthorized(`${name} may only be run against the admin database.`)
  const replicaSet = context.server.replicaSet
  if (replicaSet === undefined) throw noReplicationEnabledError()
  return replicaSet
}

/** `replSetGetStatus` (mongosh's `rs.status()`): one healthy member, primary since the server started, its optime the engine's last change. */
const replSetGetStatus: CommandHandler = (_command, context) => {
  const replicaSet = replicaSetOf('replSetGetStatus', context)
  const opTime = { ts: context.engine.clusterTime(), t: Long.ONE }
  const now = new Date()
  return {
    set: replicaSet.name,
    date: now,
    myState: 1,
    term: Long.ONE,
    syncSourceHost: '',
    syncSourceId: -1,
    heartbeatIntervalMillis: Long.fromNumber(2000),
    majorityVoteCount: 1,
    writeMajorityCount: 1,
    votingMembersCount: 1,
    writableVotingMembersCount: 1,
    optimes: { lastCommittedOpTime: opTime, lastCommittedWallTime: now, readConcernMajorityOpTime: opTime, appliedOpTime: opTime, durableOpTime: opTime, lastAppliedWallTime: now, lastDurableWallTime: now },
    members: [memberStatus(replicaSet, opTime, now)],
    ok: 1,
  }
}

function memberStatus(replicaSet: ReplicaSet, opTime: { ts: Timestamp, t: Long }, now: Date): Document {
  return {
    _id: 0,
    name: replicaSet.host,
    health: 1,
    state: 1,
    stateStr: 'PRIMARY',
    uptime: Math.floor((now.getTime() - replicaSet.startedAt.getTime()) / 1000),
    optime: opTime,
    optimeDate: now,
    lastAppliedWallTime: now,
    lastDurableWallTime: now,
    syncSourceHost: '',
    syncSourceId: -1,
    infoMessage: '',
    electionDate: replicaSet.startedAt,
    configVersion: 1,
    configTerm: 1,
    self: true,
    lastHeartbeatMessage: '',
  }
}

/** `replSetGetConfig` (`rs.conf()`): the configuration a single-member set initiated with defaults has. */
const replSetGetConfig: CommandHandler = (_command, context) => {
  const replicaSet = replicaSetOf('replSetGetConfig', context)
  let replicaSetId = replicaSetIds.get(replicaSet)
  if (replicaSetId === undefined) {
    replicaSetId = new ObjectId()
    replicaSetIds.set(replicaSet, replicaSetId)
  }
  const member = { _id: 0, host: replicaSet.host, arbiterOnly: false, buildIndexes: true, hidden: false, priority: 1, tags: {}, secondaryDelaySecs: Long.ZERO, votes: 1 }
  const settings = {
    chainingAllowed: true,
    heartbeatIntervalMillis: 2000,
    heartbeatTimeoutSecs: 10,
    electionTimeoutMillis: 10000,
    catchUpTimeoutMillis: -1,
    catchUpTakeoverDelayMillis: 30000,
    getLastErrorModes: {},
    getLastErrorDefaults: { w: 1, wtimeout: 0 },
    replicaSetId,
  }
  return { config: { _id: replicaSet.name, version: 1, term: 1, members: [member], protocolVersion: Long.ONE, writeConcernMajorityJournalDefault: true, settings }, ok: 1 }
}

/**
 * `replSetInitiate` (`rs.initiate()`): the set is initiated from the server's start, so this answers
 * AlreadyInitialized (23) as mongod does on an initiated set: a script that initiates a fresh
 * `mongod --replSet` and tolerates that answer on a second run works here unchanged.
 */
const replSetInitiate: CommandHandler = (_command, context) => {
  replicaSetOf('replSetInitiate', context)
  throw alreadyInitializedError()
}

/** `killAllSessions`: every open transaction of the server's clients is aborted (test runners clear what a failed test left open). */
const killAllSessions: CommandHandler = async (_command, context) => {
  await killAllTransactions(context.engine)
  return { ok: 1 }
}

export const REPLICATION_COMMANDS: Record<string, CommandHandler> = { replSetGetStatus, replSetGetConfig, replSetInitiate, killAllSessions }
