import { StoreError } from '../errors.js'
import { toWire } from './codec.js'
import type { Document, DriverChangeStream, DriverCollection } from './driver-db.js'
import type { StoreChanges, StoredChange } from './store.js'
import { asUnavailable } from './store-unavailable.js'

/** ChangeStreamHistoryLost; ChangeStreamFatalError (a token from elsewhere); a server that is no replica set. */
const HISTORY_LOST = 286
const FATAL = 280
const NOT_A_REPLICA_SET = new Set([40573, 40324])
const OPERATIONS = new Set(['insert', 'update', 'replace', 'delete'])

/**
 * Watches `collection` through the driver-shaped `watch()`: the engine's change log and MongoDB's
 * change streams run the same code. Post-images always (`updateLookup`), pre-images when the
 * database has them, so the route can tell a document leaving its subscriber's scope.
 */
export function watchChanges(collection: DriverCollection, from: string | undefined): StoreChanges {
  let stream: DriverChangeStream | undefined
  const open = (): DriverChangeStream => {
    if (collection.watch === undefined) throw new StoreError('FMC_ERR_STORE_NO_CHANGE_STREAMS', 'This database handle has no watch()')
    stream ??= collection.watch([], { fullDocument: 'updateLookup', fullDocumentBeforeChange: 'whenAvailable', ...(from === undefined ? {} : { resumeAfter: { _data: from } }) })
    return stream
  }
  const read = async (step: (stream: DriverChangeStream) => Promise<unknown>): Promise<StoredChange | undefined> => {
    for (;;) {
      let event: unknown
      try {
        event = await step(open())
      } catch (error) {
        if (isClosedStream(error)) return undefined
        throw mapWatchError(error)
      }
      if (event === null || event === undefined) return undefined
      const change = toStoredChange(event as Document)
      // Other kinds (a drop, an invalidate) say nothing about a document: skipped.
      if (change) return change
    }
  }
  return {
    tryNext: () => read((s) => s.tryNext()),
    next: () => read((s) => s.next()),
    close: async () => {
      await stream?.close().catch(() => undefined)
    },
  }
}

function toStoredChange(event: Document): StoredChange | undefined {
  const operation = event['operationType']
  if (typeof operation !== 'string' || !OPERATIONS.has(operation)) return undefined
  const token = (event['_id'] as { _data?: unknown } | undefined)?._data
  const key = toWire((event['documentKey'] as Document | undefined) ?? {})
  const after = event['fullDocument'] as Document | null | undefined
  const before = event['fullDocumentBeforeChange'] as Document | null | undefined
  return {
    token: String(token),
    operation: operation as StoredChange['operation'],
    after: after ? toWire(after) : undefined,
    before: before ? toWire(before) : undefined,
    id: key['id'],
  }
}

function mapWatchError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code
  const message = String((error as { message?: unknown } | null)?.message ?? '')
  if (code === HISTORY_LOST) return new StoreError('FMC_ERR_STORE_HISTORY_LOST', message, { cause: error })
  if (code === FATAL || /resume token/i.test(message)) return new StoreError('FMC_ERR_STORE_BAD_RESUME_TOKEN', message, { cause: error })
  if ((typeof code === 'number' && NOT_A_REPLICA_SET.has(code)) || /only supported on replica sets/i.test(message)) {
    return new StoreError('FMC_ERR_STORE_NO_CHANGE_STREAMS', message, { cause: error })
  }
  return asUnavailable(error, 'read') ?? error
}

/** A stream closed under a waiting read (the subscriber left, the app or the database closed): the feed just ends. */
function isClosedStream(error: unknown): boolean {
  return /ChangeStream is closed|client was closed|Topology is closed/i.test(String((error as { message?: unknown } | null)?.message ?? ''))
}
