import type { ClientSession, Document } from 'mongodb'
import type { EntityMap } from './entities.ts'
import type { RunNested, UnifiedOperation } from './run-operation.ts'
import { UnifiedTestFailure } from './unified-test-failure.ts'

/**
 * The session operations of the format (the driver's ClientSession): `startTransaction`,
 * `commitTransaction`, `abortTransaction`, `endSession`, and `withTransaction`, whose callback is a
 * list of operations run with their own expectations (an error among them reaches withTransaction,
 * which retries or fails as the driver decides).
 */
export async function runSessionOperation(name: string, session: ClientSession, args: Document, map: EntityMap, runNested: RunNested): Promise<unknown> {
  switch (name) {
    case 'startTransaction':
      map.startedTransaction = true
      session.startTransaction(args)
      return undefined
    case 'commitTransaction':
      return session.commitTransaction()
    case 'abortTransaction':
      return session.abortTransaction()
    case 'endSession':
      return session.endSession()
    case 'withTransaction': {
      map.startedTransaction = true
      const { callback, ...options } = args as { callback: (UnifiedOperation & Document)[] }
      return session.withTransaction(async () => {
        for (const operation of callback) await runNested(operation)
      }, options)
    }
    default:
      throw new UnifiedTestFailure('runner', `the runner does not support session.${name}`)
  }
}
