import type { ChangeStream } from 'mongodb'
import { UnifiedTestFailure } from './unified-test-failure.ts'

/**
 * The format's operations on a change stream entity: `iterateUntilDocumentOrError` (the driver's
 * `next()`, which resumes after a resumable error as the driver does), `iterateOnce` (one attempt:
 * `tryNext()`, a document or null) and `close` (errors ignored, as the format says).
 */
export async function runChangeStreamOperation(name: string, stream: ChangeStream): Promise<unknown> {
  switch (name) {
    case 'iterateUntilDocumentOrError':
      return stream.next()
    case 'iterateOnce':
      return stream.tryNext()
    case 'close':
      await stream.close().catch(() => undefined)
      return undefined
    default:
      throw new UnifiedTestFailure('runner', `the runner does not support changeStream.${name}`)
  }
}
