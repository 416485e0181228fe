import { readFileSync } from 'node:fs'
import { BSON, type Collection, type Document, type MongoClient } from 'mongodb'
import { createEntity, EntityMap } from './entities.ts'
import { matchDocumentList, matchValue, show } from './match.ts'
import { checkCommandEvents } from './observe-commands.ts'
import { checkExpectedError, describeError, type ExpectedError, runOperation, type UnifiedOperation } from './run-operation.ts'
import { UnifiedTestFailure } from './unified-test-failure.ts'

/** One file of the unified test format (only the parts a CRUD file uses). */
export interface UnifiedFile {
  description: string
  schemaVersion: string
  runOnRequirements?: RunOnRequirement[]
  createEntities?: Document[]
  initialData?: CollectionData[]
  tests: UnifiedTest[]
}

export interface UnifiedTest {
  description: string
  runOnRequirements?: RunOnRequirement[]
  skipReason?: string
  operations: (UnifiedOperation & { expectResult?: unknown, expectError?: ExpectedError, saveResultAsEntity?: string, ignoreResultAndError?: boolean })[]
  expectEvents?: { client: string, eventType?: string, events: Document[], ignoreExtraEvents?: boolean }[]
  outcome?: CollectionData[]
}

interface RunOnRequirement {
  minServerVersion?: string
  maxServerVersion?: string
  topologies?: string[]
  serverless?: 'require' | 'forbid' | 'allow'
  auth?: boolean
  csfle?: boolean
  serverParameters?: Document
}

interface CollectionData {
  collectionName: string
  databaseName: string
  createOptions?: Document
  documents: Document[]
}

/**
 * Tests that assert what the Node driver sends, which this driver does not do against any server
 * (the same test fails against a real MongoDB): they say nothing of the engine. Keyed by
 * "<file description>: <test description>".
 */
const BYPASS_FALSE = 'the Node driver sends bypassDocumentValidation only when it is true (aggregate, findAndModify) or omits it in bulk inserts'
const DRIVER_SIDE: Readonly<Record<string, string>> = {
  'bypassDocumentValidation: Aggregate with $out passes bypassDocumentValidation: false': BYPASS_FALSE,
  'bypassDocumentValidation: BulkWrite passes bypassDocumentValidation: false': BYPASS_FALSE,
  'bypassDocumentValidation: FindOneAndReplace passes bypassDocumentValidation: false': BYPASS_FALSE,
  'bypassDocumentValidation: FindOneAndUpdate passes bypassDocumentValidation: false': BYPASS_FALSE,
  'bypassDocumentValidation: InsertMany passes bypassDocumentValidation: false': BYPASS_FALSE,
}

/** What the runOnRequirements are checked against: what the server says of itself. */
export interface ServerFacts {
  version: string
  topology: 'single' | 'replicaset' | 'sharded' | 'load-balanced'
}

/** Extended JSON in relaxed mode: numbers stay JS numbers, so they can be passed as driver options. */
export function loadUnifiedFile(path: string): UnifiedFile {
  return BSON.EJSON.parse(readFileSync(path, 'utf8'), { relaxed: true }) as UnifiedFile
}

export async function describeServer(client: MongoClient): Promise<ServerFacts> {
  const admin = client.db('admin')
  const info = await admin.command({ buildInfo: 1 })
  const hello = await admin.command({ hello: 1 })
  const topology = hello['msg'] === 'isdbgrid' ? 'sharded' : hello['setName'] ? 'replicaset' : 'single'
  return { version: String(info['version']), topology }
}

/** Why a standalone of the reported version cannot run this test, or undefined when it can. */
export function skipReason(file: UnifiedFile, test: UnifiedTest, server: ServerFacts): string | undefined {
  if (test.skipReason) return `the file says: ${test.skipReason}`
  const driverSide = DRIVER_SIDE[`${file.description}: ${test.description}`]
  if (driverSide) return `tests the driver, not the server: ${driverSide}`
  for (const requirements of [file.runOnRequirements, test.runOnRequirements]) {
    if (!requirements) continue
    const reasons = requirements.map((requirement) => unmetRequirement(requirement, server))
    if (reasons.every((reason) => reason !== undefined)) return reasons.join('; or ')
  }
  return undefined
}

function unmetRequirement(requirement: RunOnRequirement, server: ServerFacts): string | undefined {
  if (requirement.minServerVersion && compareVersions(server.version, requirement.minServerVersion) < 0) {
    return `needs MongoDB ${requirement.minServerVersion}, the server reports ${server.version}`
  }
  if (requirement.maxServerVersion && compareVersions(server.version, requirement.maxServerVersion) > 0) {
    return `needs MongoDB at most ${requirement.maxServerVersion}, the server reports ${server.version}`
  }
  if (requirement.topologies && !requirement.topologies.includes(server.topology)) {
    return `needs a ${requirement.topologies.join('/')} topology, the server is ${server.topology}`
  }
  if (requirement.serverless === 'require') return 'needs serverless'
  if (requirement.auth === true) return 'needs authentication'
  if (requirement.csfle === true) return 'needs client-side field level encryption'
  if (requirement.serverParameters) return 'needs server parameters the runner does not check'
  return undefined
}

/** Dotted versions by number, a missing part counting as 0 ("4.2" equals "4.2.0"). */
export function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number)
  const right = b.split('.').map(Number)
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0)
    if (difference !== 0) return Math.sign(difference)
  }
  return 0
}

/**
 * Runs one test: initialData through the internal client, the entities, each operation with its
 * expected result or error, the command events, then the outcome. Throws a UnifiedTestFailure on
 * the first difference. Whatever happens, the test's fail points are turned off, its sessions,
 * streams and clients closed, and a transaction it left open killed.
 */
export async function runUnifiedTest(file: UnifiedFile, test: UnifiedTest, uri: string, internal: MongoClient): Promise<void> {
  await loadInitialData(internal, file.initialData ?? [])
  const map = new EntityMap(uri, internal)
  try {
    for (const entity of file.createEntities ?? []) await createEntity(entity, map)
    for (const [index, operation] of test.operations.entries()) await runExpectedOperation(operation, `operation ${index} (${operation.name})`, map)
    for (const expected of test.expectEvents ?? []) {
      if ((expected.eventType ?? 'command') !== 'command') throw new UnifiedTestFailure('runner', `the runner does not check ${expected.eventType} events`)
      const observed = map.events.get(expected.client)
      if (!observed) throw new UnifiedTestFailure('runner', `expectEvents names ${expected.client}, which observes no events`)
      const mismatch = checkCommandEvents(expected.events, observed, expected.ignoreExtraEvents ?? false, map.sessionIds)
      if (mismatch) throw new UnifiedTestFailure('events', `${expected.client} ${mismatch}`)
    }
    for (const expected of test.outcome ?? []) await checkOutcome(internal, expected)
  } finally {
    for (const { client, name } of map.failPoints) await client.db('admin').command({ configureFailPoint: name, mode: 'off' }).catch(() => undefined)
    await map.close()
    // A transaction left open would hold its documents' write queues for the next tests (the format's "Terminating Open Transactions").
    if (map.startedTransaction) await internal.db('admin').command({ killAllSessions: [] }).catch(() => undefined)
  }
}

type TestOperation = UnifiedTest['operations'][number]

/**
 * One operation and its expectations: the result, the error, or neither (`ignoreResultAndError`);
 * `saveResultAsEntity`. A `nested` one (of withTransaction's callback) throws its error on after
 * checking it, for withTransaction to see.
 */
async function runExpectedOperation(operation: TestOperation, label: string, map: EntityMap, nested = false): Promise<void> {
  let result: unknown
  let error: unknown
  let threw = false
  const runNested = (inner: TestOperation) => runExpectedOperation(inner, `${label}: ${inner.name}`, map, true)
  try {
    result = await withinTimeLimit(runOperation(operation, map, runNested), label)
  } catch (caught) {
    if (caught instanceof UnifiedTestFailure) throw caught
    threw = true
    error = caught
  }
  if (operation.ignoreResultAndError) return
  if (operation.expectError) {
    if (!threw) throw new UnifiedTestFailure('silent', `${label}: expected an error ${show(operation.expectError)}, it succeeded with ${show(result)}`)
    const mismatch = checkExpectedError(operation.expectError, error)
    if (mismatch) throw new UnifiedTestFailure(mismatch.kind, `${label}: ${mismatch.message}`)
    // In withTransaction's callback the error goes on to withTransaction, as the driver's callback would throw it.
    if (nested) throw error
    return
  }
  if (threw) {
    if (nested) throw error
    throw new UnifiedTestFailure('refusal', `${label} threw ${describeError(error)}`)
  }
  if (operation.saveResultAsEntity) map.set(operation.saveResultAsEntity, result)
  if ('expectResult' in operation) {
    const mismatch = Array.isArray(operation.expectResult) && isDocumentList(operation.name)
      ? matchDocumentList(operation.expectResult, result as unknown[], map.sessionIds)
      : matchValue(operation.expectResult, result, { sessions: map.sessionIds })
    if (mismatch) throw new UnifiedTestFailure('silent', `${label} result: ${mismatch}`)
  }
}

/**
 * How long one operation may take before the test fails as stuck (a transaction waiting for another
 * the test will only end later, a change stream waiting for a change that never comes): the test
 * then cleans up (its transactions killed, its clients closed) instead of holding the next tests.
 */
const OPERATION_TIME_LIMIT_MS = 5_000

async function withinTimeLimit<T>(running: Promise<T>, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnifiedTestFailure('runner', `${label} did not end within ${OPERATION_TIME_LIMIT_MS} ms`)), OPERATION_TIME_LIMIT_MS)
  })
  try {
    return await Promise.race([running, stuck])
  } finally {
    clearTimeout(timer)
  }
}

/** Operations whose expected array holds root-level documents (extra keys allowed in each). */
function isDocumentList(operationName: string): boolean {
  return ['find', 'aggregate', 'listIndexes', 'listCollections'].includes(operationName)
}

async function loadInitialData(internal: MongoClient, data: CollectionData[]): Promise<void> {
  for (const { databaseName, collectionName, createOptions, documents } of data) {
    const db = internal.db(databaseName)
    await db.dropCollection(collectionName, { writeConcern: { w: 'majority' } }).catch(() => undefined)
    await db.createCollection(collectionName, { ...createOptions, writeConcern: { w: 'majority' } })
    if (documents.length > 0) await db.collection(collectionName).insertMany(documents, { writeConcern: { w: 'majority' } })
  }
}

/** The collection holds exactly these documents, by `_id` ascending; numbers compare by value. */
async function checkOutcome(internal: MongoClient, expected: CollectionData): Promise<void> {
  const collection: Collection = internal.db(expected.databaseName).collection(expected.collectionName)
  const actual = await collection.find({}, { sort: { _id: 1 }, readConcern: { level: 'local' } }).toArray()
  const mismatch = actual.length !== expected.documents.length
    ? `expected ${expected.documents.length} documents, got ${actual.length}: ${show(actual)}`
    : expected.documents.map((document, index) => matchValue(document, actual[index], { root: false })).find((line) => line !== undefined)
  if (mismatch) throw new UnifiedTestFailure('silent', `outcome of ${expected.databaseName}.${expected.collectionName}: ${mismatch}`)
}
