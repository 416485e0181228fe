import type { ClientSession, Document } from 'mongodb'
import { createEntity, type EntityMap } from './entities.ts'
import { UnifiedTestFailure } from './unified-test-failure.ts'

/** The driver's names of a transaction's states, by the format's names. */
const TRANSACTION_STATES: Record<string, string[]> = {
  none: ['NO_TRANSACTION'],
  starting: ['STARTING_TRANSACTION'],
  in_progress: ['TRANSACTION_IN_PROGRESS'],
  committed: ['TRANSACTION_COMMITTED', 'TRANSACTION_COMMITTED_EMPTY'],
  aborted: ['TRANSACTION_ABORTED'],
}

/**
 * The format's special operations (`object: testRunner`): fail points (remembered, to be turned
 * off after the test), assertions on sessions, collections and indexes (read through a client of
 * the test's own server), and `createEntities`. Each fails the test as a UnifiedTestFailure.
 */
export async function runTestRunnerOperation(name: string, args: Document, map: EntityMap): Promise<void> {
  switch (name) {
    case 'failPoint':
      return setFailPoint(map, map.client(String(args['client'])), args['failPoint'] as Document)
    case 'targetedFailPoint': {
      // A session is pinned to a mongos only; against one server the fail point goes where its client goes.
      const session = args['session'] as ClientSession
      if (!isPinned(session)) throw new UnifiedTestFailure('runner', 'targetedFailPoint: the session is not pinned to a mongos')
      return setFailPoint(map, (session as unknown as { client: EntityMap['clients'][number] }).client, args['failPoint'] as Document)
    }
    case 'assertSessionTransactionState':
      return assertTransactionState(args['session'] as ClientSession, String(args['state']))
    case 'assertSessionPinned':
      return assertThat(isPinned(args['session'] as ClientSession), 'the session is not pinned')
    case 'assertSessionUnpinned':
      return assertThat(!isPinned(args['session'] as ClientSession), 'the session is pinned')
    case 'assertCollectionExists':
    case 'assertCollectionNotExists':
      return assertCollection(map, args, name === 'assertCollectionExists')
    case 'assertIndexExists':
    case 'assertIndexNotExists':
      return assertIndex(map, args, name === 'assertIndexExists')
    case 'createEntities':
      for (const entity of args['entities'] as Document[]) await createEntity(entity, map)
      return undefined
    default:
      throw new UnifiedTestFailure('runner', `the runner does not support testRunner.${name}`)
  }
}

async function setFailPoint(map: EntityMap, client: EntityMap['clients'][number], failPoint: Document): Promise<void> {
  await client.db('admin').command(failPoint)
  map.failPoints.push({ client, name: String(failPoint['configureFailPoint']) })
}

function isPinned(session: ClientSession): boolean {
  return (session as unknown as { isPinned: boolean }).isPinned === true
}

function assertTransactionState(session: ClientSession, state: string): void {
  const actual = (session as unknown as { transaction: { state: string } }).transaction.state
  assertThat(TRANSACTION_STATES[state]?.includes(actual) === true, `expected the transaction state ${state}, got ${actual}`)
}

function assertThat(condition: boolean, message: string): void {
  if (!condition) throw new UnifiedTestFailure('silent', message)
}

async function assertCollection(map: EntityMap, args: Document, exists: boolean): Promise<void> {
  const { databaseName, collectionName } = args as { databaseName: string, collectionName: string }
  const names = await map.internal.db(databaseName).listCollections({ name: collectionName }, { nameOnly: true }).toArray()
  assertThat((names.length > 0) === exists, `${databaseName}.${collectionName} ${exists ? 'does not exist' : 'exists'}`)
}

async function assertIndex(map: EntityMap, args: Document, exists: boolean): Promise<void> {
  const { databaseName, collectionName, indexName } = args as { databaseName: string, collectionName: string, indexName: string }
  const indexes = await map.internal.db(databaseName).collection(collectionName).listIndexes().toArray().catch(() => [])
  assertThat(indexes.some((index) => index['name'] === indexName) === exists, `index ${indexName} of ${databaseName}.${collectionName} ${exists ? 'does not exist' : 'exists'}`)
}
