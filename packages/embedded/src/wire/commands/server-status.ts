import type { CommandHandler } from './command-context.js'
import { SERVER_VERSION } from './handshake.js'

const MEBIBYTE = 1024 * 1024

/**
 * `serverStatus`: what mongod's reports that the wire server knows (Compass's performance view and
 * mongosh's `db.serverStatus()` read these): uptime, connections, opcounters (documents inserted;
 * finds, updates and deletes per statement; getMores; other commands), network bytes and requests,
 * the process's resident memory. Sections of mongod's storage engine (`wiredTiger`), replication
 * and metrics are absent: the engine has none of them.
 */
const serverStatus: CommandHandler = (_command, context) => {
  const { activity, address, maxConnections, tlsMode, security } = context.server
  const uptimeMillis = Date.now() - activity.startedAt
  const current = activity.peers.size
  const busy = new Set(activity.running().map((op) => op.peer.id))
  return {
    host: address,
    version: SERVER_VERSION,
    process: 'fastify-mongo-crud-db',
    pid: process.pid,
    uptime: Math.floor(uptimeMillis / 1000),
    uptimeMillis,
    uptimeEstimate: Math.floor(uptimeMillis / 1000),
    localTime: new Date(),
    connections: { current, available: Math.max(0, maxConnections - current), totalCreated: activity.totalConnections, active: busy.size },
    network: activity.network(),
    opcounters: { ...activity.opcounters },
    mem: { bits: 64, resident: Math.round(process.memoryUsage.rss() / MEBIBYTE), supported: true },
    security: { authorization: security.enabled ? 'enabled' : 'disabled', tlsMode },
    storageEngine: { name: 'embedded' },
    ok: 1,
  }
}

export const SERVER_STATUS_COMMANDS: Record<string, CommandHandler> = { serverStatus }
