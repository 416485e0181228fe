import { hostname } from 'node:os'
import { Long, ObjectId, type Timestamp } from 'mongodb'
import type { Document } from '../document.js'

/** mongod's NotPrimaryError and ShutdownError codes: the errors a driver reads as a change of the server's state. */
const STATE_CHANGE_CODES = new Set([91, 189, 10107, 11600, 11602, 13435, 13436])

/**
 * The single-node replica set the wire server presents under `--replSet <name>`: drivers then do
 * what they do only with a replica set (transactions, retryable writes, change streams with
 * `startAtOperationTime`, causal consistency) and a `?replicaSet=<name>` URI connects. The one
 * member is always primary: the set never elects, never steps down and never changes its
 * configuration, so its topology version stays at counter 0 and an awaitable `hello` waits its
 * whole `maxAwaitTimeMS` (or until the server stops). Its clock is the engine's
 * (changes/cluster-time.ts): the time of the last change committed.
 */
export class ReplicaSet {
  readonly name: string
  /** `host:port` the member goes by in `hosts`, `primary` and `me`: what drivers connect to. */
  host = ''
  /** Identifies this server's run in `topologyVersion`: a driver seeing another one knows it restarted. */
  readonly processId = new ObjectId()
  /** One election, won at start: drivers compare it across primaries. */
  readonly electionId = new ObjectId('7fffffff0000000000000001')
  readonly startedAt = new Date()
  readonly #stopping = new Set<() => void>()
  #stopped = false

  constructor(name: string, readonly advertisedHost?: string) {
    this.name = name
  }

  /**
   * The member's address once the server listens: the one given, else the listening address, or
   * for a wildcard one (0.0.0.0, ::) the machine's name, as mongod's default member host.
   */
  listening(address: string, port: number): void {
    if (this.advertisedHost !== undefined) {
      this.host = this.advertisedHost
      return
    }
    const shown = address === '0.0.0.0' || address === '::' ? hostname() : address.includes(':') ? `[${address}]` : address
    this.host = `${shown}:${port}`
  }

  get topologyVersion(): Document {
    return { processId: this.processId, counter: Long.ZERO }
  }

  /** The fields `hello` adds for a replica set member (SDAM's RSPrimary). */
  helloFields(lastWrite: Timestamp): Document {
    // One term, the one of the election at start. The date is the answer's: the engine keeps no time per
    // change in memory, and drivers read it only to judge a secondary's staleness, which one member has none of.
    const opTime = { ts: lastWrite, t: Long.ONE }
    const lastWriteDate = new Date()
    return {
      topologyVersion: this.topologyVersion,
      hosts: [this.host],
      setName: this.name,
      setVersion: 1,
      secondary: false,
      primary: this.host,
      me: this.host,
      electionId: this.electionId,
      lastWrite: { opTime, lastWriteDate, majorityOpTime: opTime, majorityWriteDate: lastWriteDate },
    }
  }

  /**
   * A failed reply with the server's topology version when its error (or its write concern error)
   * says the server is no primary or is shutting down, as mongod's: a driver that sees the version
   * it already knows takes the error as stale and keeps the server, instead of forgetting it and
   * waiting for its monitor's next `hello` (which, streamed, comes `maxAwaitTimeMS` later).
   */
  withTopologyVersion(reply: Document): Document {
    const code = reply['ok'] === 1 ? undefined : Number(reply['code'])
    const concernCode = Number((reply['writeConcernError'] as Document | undefined)?.['code'])
    if (!STATE_CHANGE_CODES.has(code ?? Number.NaN) && !STATE_CHANGE_CODES.has(concernCode)) return reply
    return { ...reply, topologyVersion: this.topologyVersion }
  }

  /**
   * An awaitable `hello` (the driver's streaming monitor sends `topologyVersion` and `maxAwaitTimeMS`):
   * answers at once when the client's topology version is not this one, else once `maxAwaitTimeMS`
   * has passed, the topology never changing here, or when the server stops.
   */
  async awaitTopologyChange(clientVersion: unknown, maxAwaitTimeMS: number): Promise<void> {
    const known = clientVersion as { processId?: unknown, counter?: unknown } | undefined
    const same = known?.processId instanceof ObjectId && known.processId.equals(this.processId) && Number(known.counter) === 0
    if (!same || this.#stopped || !(maxAwaitTimeMS > 0)) return
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.#stopping.delete(done)
        resolve()
      }
      const timer = setTimeout(done, maxAwaitTimeMS)
      // A client gone meanwhile leaves this wait behind: it must not keep the process up.
      timer.unref()
      this.#stopping.add(done)
    })
  }

  get stopped(): boolean {
    return this.#stopped
  }

  /** The server stops: waiting `hello`s answer now, later ones at once. */
  stop(): void {
    this.#stopped = true
    for (const done of [...this.#stopping]) done()
  }
}
