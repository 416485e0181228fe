import { outOfDiskSpaceError } from '../errors.js'
import { noRoomReason } from './no-room.js'

/** What `committing` needs of lmdb-js's root database. */
interface LmdbRoot {
  committed: PromiseLike<unknown>
}

/** Errors `committing` made of a failed commit: the engine's memory of what it wrote may be ahead of the disk. */
const COMMIT_FAILURES = new WeakSet<object>()

/** Whether `error` is a commit the storage could not make (nothing of the transaction was stored). */
export function isCommitFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && COMMIT_FAILURES.has(error)
}

/**
 * `write` (an lmdb-js write or transaction promise), its failure made the engine's error.
 *
 * lmdb-js rejects every write of a commit that failed with `Commit failed (see commitError for
 * details)`, whose `commitError` is a second promise that lmdb-js rejects with the cause (`No space
 * left on device`, errno 28) in the same turn. Nothing else ever observes that second promise, and an
 * unobserved rejection ends the process: this observes it, and answers its cause. A write the disk
 * has no room for is MongoDB's OutOfDiskSpace (14031); LMDB aborted its transaction, so nothing of
 * it was stored, and the environment goes on serving reads and later writes. Called right after
 * the write was made (`observeBatchStart`).
 */
export async function committing<T>(root: LmdbRoot, write: PromiseLike<T>, directory: string): Promise<T> {
  observeBatchStart(root)
  try {
    return await write
  } catch (error) {
    throw await commitFailure(error, directory)
  }
}

/**
 * lmdb-js opens the batch of writes of an event turn with an instruction of its own, in a
 * `setImmediate` it queues with the turn's first write, and the commit promise it makes for it is
 * kept nowhere (write.js, `writeBatchStart`): when that batch's commit fails, the rejection is
 * unobserved and ends the process. Once that immediate has run (this one is queued after it:
 * `committing` is called right after the write), the promise is the root's `committed`, observed
 * here: its failure is answered to the writes of the batch, through `committing`.
 */
function observeBatchStart(root: LmdbRoot): void {
  // One look per batch: the writes of one event turn share lmdb-js's batch (and its promise).
  if (OBSERVING.has(root)) return
  OBSERVING.add(root)
  setImmediate(() => {
    OBSERVING.delete(root)
    // Both callbacks: lmdb-js calls the first one without checking that there is one.
    root.committed.then(
      () => undefined,
      () => undefined
    )
  })
}

/** Roots whose batch start is about to be observed. */
const OBSERVING = new WeakSet<LmdbRoot>()

async function commitFailure(error: unknown, directory: string): Promise<unknown> {
  const pending = (error as { commitError?: unknown } | null)?.commitError
  if (!(pending instanceof Promise)) return error
  // Rejected in the turn that rejected `error`; the fallback only keeps a promise that never settles from hanging the write.
  const cause = await Promise.race([pending.then(() => undefined, (reason: unknown) => reason), new Promise<undefined>((resolve) => setImmediate(resolve, undefined))])
  const reason = noRoomReason(cause, directory, 'data.mdb')
  const failure =
    reason === undefined
      ? (cause ?? error)
      : outOfDiskSpaceError(`Write failed: ${reason}. Nothing of this write was stored; reads go on, and writes succeed again once there is room.`)
  if (typeof failure === 'object' && failure !== null) COMMIT_FAILURES.add(failure)
  return failure
}
