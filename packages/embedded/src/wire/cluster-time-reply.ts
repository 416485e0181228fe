import { Binary, Long } from 'mongodb'
import type { Document } from '../document.js'
import type { EmbeddedDb } from '../embedded-db.js'

/** The signature of an unsigned cluster time: keyId 0 and a zero hash, what mongod sends without keys (no `--auth` or `--keyFile` between members). */
const UNSIGNED = { hash: new Binary(Buffer.alloc(20)), keyId: Long.ZERO }

/**
 * A reply of a replica set member, errors included: `operationTime` (the time of the engine's
 * last committed change once the command ran) and `$clusterTime`, which drivers gossip back and
 * use for causal consistency (`afterClusterTime`) and a change stream's `startAtOperationTime`.
 * With a single member every read sees every acknowledged write, so an `afterClusterTime` asks
 * for nothing more and is accepted as it is.
 */
export function withClusterTime(reply: Document, engine: EmbeddedDb): Document {
  let time: ReturnType<EmbeddedDb['clusterTime']>
  try {
    time = engine.clusterTime()
  } catch {
    // The engine closed under the command (the server stopping): the reply goes without a time.
    return reply
  }
  return { ...reply, operationTime: time, $clusterTime: { clusterTime: time, signature: UNSIGNED } }
}
