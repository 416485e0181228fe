import { type CommandFailedEvent, type CommandStartedEvent, type CommandSucceededEvent, type Document, type MongoClient, ReadConcern, WriteConcern } from 'mongodb'
import { isDocument, matchValue, type SessionIds, show } from './match.ts'

type EventName = 'commandStartedEvent' | 'commandSucceededEvent' | 'commandFailedEvent'

export interface ObservedEvent {
  type: EventName
  commandName: string
  databaseName: string
  command?: Document
  reply?: Document
}

/** Commands the format says a runner never reports: fail point setup, and unless asked the sensitive handshake and auth commands. */
const SENSITIVE_COMMANDS = ['hello', 'ismaster', 'isMaster', 'saslStart', 'saslContinue', 'getnonce', 'authenticate', 'createUser', 'updateUser', 'copydbgetnonce', 'copydbsaslstart', 'copydb']

/**
 * Records a client entity's command monitoring events of the kinds its `observeEvents` names
 * (the client must be created with `monitorCommands: true`), in the order they happen.
 */
export function observeCommands(client: MongoClient, observe: string[], ignore: string[], observeSensitive = false): ObservedEvent[] {
  const events: ObservedEvent[] = []
  const ignored = new Set(['configureFailPoint', ...(observeSensitive ? [] : SENSITIVE_COMMANDS), ...ignore])
  const record = (type: EventName) => (event: CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent) => {
    if (ignored.has(event.commandName)) return
    const observed: ObservedEvent = { type, commandName: event.commandName, databaseName: event.databaseName }
    if ('command' in event) observed.command = withPlainMaps(event.command)
    if ('reply' in event) observed.reply = event.reply as Document
    events.push(observed)
  }
  if (observe.includes('commandStartedEvent')) client.on('commandStarted', record('commandStartedEvent'))
  if (observe.includes('commandSucceededEvent')) client.on('commandSucceeded', record('commandSucceededEvent'))
  if (observe.includes('commandFailedEvent')) client.on('commandFailed', record('commandFailedEvent'))
  return events
}

/**
 * The driver builds some command fields as Maps (a `sort`, an index's `key`, to keep key order),
 * at any depth (`updates[i].sort`, `indexes[i].key`), or as its own classes (`readConcern`,
 * `writeConcern`), which go over the wire as plain documents; the matcher compares plain documents.
 */
function withPlainMaps(command: Document): Document {
  return toPlain(command) as Document
}

function toPlain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, inner]) => [key, toPlain(inner)]))
  if (value instanceof ReadConcern || value instanceof WriteConcern) return { ...value }
  if (Array.isArray(value)) return value.map(toPlain)
  if (isDocument(value)) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, toPlain(inner)]))
  return value
}

/** One `expectEvents` entry against what a client observed; undefined when they match. */
export function checkCommandEvents(expected: Document[], observed: ObservedEvent[], ignoreExtraEvents: boolean, sessions: SessionIds): string | undefined {
  const tooMany = ignoreExtraEvents ? false : observed.length > expected.length
  if (observed.length < expected.length || tooMany) {
    return `expected ${expected.length} command events, observed ${observed.length}: ${observed.map((event) => `${event.type.replace('Event', '')} ${event.commandName}`).join(', ')}`
  }
  for (const [index, wanted] of expected.entries()) {
    const [type, fields] = Object.entries(wanted)[0] as [string, Document]
    const event = observed[index]!
    if (event.type !== type) return `event ${index}: expected ${type} ${String(fields['commandName'] ?? '')}, observed ${event.type} ${event.commandName}`
    for (const key of ['commandName', 'databaseName'] as const) {
      if (fields[key] !== undefined && fields[key] !== event[key]) return `event ${index}: expected ${key} ${String(fields[key])}, observed ${event[key]}`
    }
    for (const key of ['command', 'reply'] as const) {
      if (!isDocument(fields[key])) continue
      const actual = key === 'command' ? withoutDriverTimeout(fields[key], event) : event[key]
      const mismatch = matchValue(fields[key], actual, { sessions })
      if (mismatch) return `event ${index} (${event.commandName}) ${key}: ${mismatch}`
    }
    const unchecked = Object.keys(fields).filter((key) => !['commandName', 'databaseName', 'command', 'reply'].includes(key))
    if (unchecked.length > 0) return `event ${index}: the runner does not check ${unchecked.join(', ')} (${show(fields)})`
  }
  return undefined
}

/**
 * The Node driver (7.x, sessions.js) adds `wtimeout: 10000` to the write concern of every commit and
 * abort of a transaction that has one configured, where the format expects it on retries only: the
 * same commands go to any server, so an expected write concern without `wtimeout` is matched
 * without the driver's 10000.
 */
function withoutDriverTimeout(expected: Document, event: ObservedEvent): Document | undefined {
  const command = event.command
  const wanted = expected['writeConcern']
  const sent = command?.['writeConcern'] as Document | undefined
  if (!['commitTransaction', 'abortTransaction'].includes(event.commandName) || !isDocument(wanted) || 'wtimeout' in wanted || sent?.['wtimeout'] !== 10000) return command
  const { wtimeout: _driverTimeout, ...writeConcern } = sent
  return { ...command, writeConcern }
}
