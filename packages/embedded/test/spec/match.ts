import { Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from 'mongodb'

/**
 * The unified test format's matching rules ("Evaluating Matches"): an expected value, which may
 * carry `$$` operators, against an actual value the driver returned. Root-level documents may
 * have extra keys, nested ones may not; numbers compare by value across int, long and double.
 * Returns undefined on a match, otherwise one line saying where and how the values differ.
 */
export function matchValue(expected: unknown, actual: unknown, options: { root?: boolean, sessions?: SessionIds } = {}): string | undefined {
  return match(expected, actual, options.root ?? true, '', options.sessions ?? NO_SESSIONS)
}

/** `find` and `aggregate` results: the same number of documents, each matched as a root-level document. */
export function matchDocumentList(expected: unknown[], actual: unknown[], sessions: SessionIds = NO_SESSIONS): string | undefined {
  if (expected.length !== actual.length) return `expected ${expected.length} documents, got ${actual.length}: ${show(actual)}`
  for (const [index, value] of expected.entries()) {
    const mismatch = match(value, actual[index], true, `[${index}]`, sessions)
    if (mismatch) return mismatch
  }
  return undefined
}

/** The logical session id (`lsid`) of each session entity of the test, for `$$sessionLsid`. */
export type SessionIds = ReadonlyMap<string, { id: unknown }>

const NO_SESSIONS: SessionIds = new Map()

export function isDocument(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** `{ $$name: argument }`: a document whose first and only key starts with `$$`. */
function specialOperator(value: unknown): [string, unknown] | undefined {
  if (!isDocument(value)) return undefined
  const keys = Object.keys(value)
  if (keys.length !== 1 || !keys[0]!.startsWith('$$')) return undefined
  return [keys[0]!, value[keys[0]!]]
}

function match(expected: unknown, actual: unknown, root: boolean, path: string, sessions: SessionIds): string | undefined {
  const special = specialOperator(expected)
  if (special) return matchSpecial(special[0], special[1], actual, root, path, sessions)
  if (isDocument(expected)) {
    if (!isDocument(actual)) return `${at(path)}expected a document, got ${show(actual)}`
    for (const [key, value] of Object.entries(expected)) {
      const keyPath = path ? `${path}.${key}` : key
      const present = key in actual && actual[key] !== undefined
      const operator = specialOperator(value)
      if (operator?.[0] === '$$exists') {
        if (present !== operator[1]) return `${at(keyPath)}expected ${operator[1] ? 'present' : 'absent'}, got ${show(actual[key])}`
        continue
      }
      if (operator?.[0] === '$$unsetOrMatches' && !present) continue
      if (!present) return `${at(keyPath)}missing (expected ${show(value)})`
      const mismatch = match(value, actual[key], false, keyPath, sessions)
      if (mismatch) return mismatch
    }
    if (!root) {
      const extra = Object.keys(actual).filter((key) => !(key in expected) && actual[key] !== undefined)
      if (extra.length > 0) return `${at(path)}unexpected key(s) ${extra.join(', ')} in ${show(actual)}`
    }
    return undefined
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at(path)}expected an array, got ${show(actual)}`
    if (expected.length !== actual.length) return `${at(path)}expected ${show(expected)}, got ${show(actual)}`
    for (const [index, value] of expected.entries()) {
      const mismatch = match(value, actual[index], false, `${path}[${index}]`, sessions)
      if (mismatch) return mismatch
    }
    return undefined
  }
  return isSameScalar(expected, actual) ? undefined : `${at(path)}expected ${show(expected)}, got ${show(actual)}`
}

function matchSpecial(name: string, argument: unknown, actual: unknown, root: boolean, path: string, sessions: SessionIds): string | undefined {
  switch (name) {
    case '$$unsetOrMatches':
      return actual === undefined ? undefined : match(argument, actual, root, path, sessions)
    case '$$sessionLsid': {
      const lsid = sessions.get(String(argument))
      if (lsid === undefined) return `${at(path)}no session entity ${show(argument)}`
      return isSameScalar((lsid.id as Binary | undefined) ?? null, (actual as { id?: unknown } | undefined)?.id) ? undefined : `${at(path)}expected the lsid of ${String(argument)}, got ${show(actual)}`
    }
    case '$$exists':
      return (actual !== undefined) === argument ? undefined : `${at(path)}expected ${argument ? 'present' : 'absent'}, got ${show(actual)}`
    case '$$type': {
      const types = Array.isArray(argument) ? argument : [argument]
      if (actual === undefined) return `${at(path)}missing (expected type ${types.join(' or ')})`
      const actualTypes = bsonTypesOf(actual)
      return types.some((type) => actualTypes.includes(String(type))) ? undefined : `${at(path)}expected type ${types.join(' or ')}, got ${actualTypes.join('/')} ${show(actual)}`
    }
    case '$$matchesHexBytes': {
      if (typeof argument !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(argument)) throw new Error(`malformed $$matchesHexBytes ${show(argument)}`)
      const bytes = actual instanceof Binary ? Buffer.from(actual.buffer) : Buffer.isBuffer(actual) ? actual : undefined
      return bytes?.toString('hex') === argument.toLowerCase() ? undefined : `${at(path)}expected bytes ${argument}, got ${show(actual)}`
    }
    case '$$lte': {
      const limit = toNumber(argument)
      const value = toNumber(actual)
      return limit !== undefined && value !== undefined && value <= limit ? undefined : `${at(path)}expected at most ${show(argument)}, got ${show(actual)}`
    }
    default:
      return `${at(path)}the runner does not support the special operator ${name}`
  }
}

/** The `$type` names a value can have. The driver promotes int32, int64 and double to one JS number, so an integral number answers to all three. */
function bsonTypesOf(value: unknown): string[] {
  if (typeof value === 'number') return Number.isInteger(value) ? ['int', 'long', 'double', 'number'] : ['double', 'number']
  if (typeof value === 'bigint' || value instanceof Long) return ['long', 'number']
  if (value instanceof Int32) return ['int', 'number']
  if (value instanceof Double) return ['double', 'number']
  if (value instanceof Decimal128) return ['decimal', 'number']
  if (typeof value === 'string') return ['string']
  if (typeof value === 'boolean') return ['bool']
  if (value === null) return ['null']
  if (value instanceof ObjectId) return ['objectId']
  if (value instanceof Date) return ['date']
  if (value instanceof Timestamp) return ['timestamp']
  if (value instanceof Binary || Buffer.isBuffer(value)) return ['binData']
  if (value instanceof RegExp) return ['regex']
  if (Array.isArray(value)) return ['array']
  if (isDocument(value)) return ['object']
  const bsonType = (value as { _bsontype?: string } | undefined)?._bsontype
  const names: Record<string, string> = { BSONRegExp: 'regex', Code: 'javascript', MinKey: 'minKey', MaxKey: 'maxKey', BSONSymbol: 'symbol' }
  return bsonType && names[bsonType] ? [names[bsonType]] : ['unknown']
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  if (typeof value === 'bigint') return Number(value)
  if (value instanceof Long) return value.toNumber()
  if (value instanceof Int32 || value instanceof Double) return value.value
  return undefined
}

function isSameScalar(expected: unknown, actual: unknown): boolean {
  const expectedNumber = toNumber(expected)
  if (expectedNumber !== undefined) {
    const actualNumber = toNumber(actual)
    return actualNumber !== undefined && (actualNumber === expectedNumber || (Number.isNaN(actualNumber) && Number.isNaN(expectedNumber)))
  }
  if (expected instanceof Decimal128) return actual instanceof Decimal128 && expected.toString() === actual.toString()
  if (expected instanceof ObjectId) return actual instanceof ObjectId && expected.equals(actual)
  if (expected instanceof Date) return actual instanceof Date && expected.getTime() === actual.getTime()
  if (expected instanceof Binary) return actual instanceof Binary && expected.sub_type === actual.sub_type && Buffer.from(expected.buffer).equals(Buffer.from(actual.buffer))
  if (expected === null || typeof expected !== 'object') return expected === actual
  return show(expected) === show(actual)
}

function at(path: string): string {
  return path ? `${path}: ` : ''
}

/** A short, readable rendering of a value for a mismatch line. */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined'
  const text = JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === 'bigint') return `${inner}n`
    if (inner instanceof ObjectId) return `ObjectId(${inner.toHexString()})`
    return inner
  })
  return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}...` : text
}
