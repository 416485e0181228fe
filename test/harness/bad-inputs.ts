import { seededRandom } from './seeded-random.ts'

/**
 * Seeded bad requests for any generated route. Each starts as a request the route takes (existing ids,
 * a valid body in one of its media types, a valid query), then gets a few faults, each of one kind: the
 * method, a path id, the query string, a header, the Content-Type, the body. One fault at a time reaches
 * past the checks before it; a few requests keep none, so writes succeed too. Bad bodies are missing,
 * empty, malformed, of the wrong type, huge, deep, unicode, poisoned with prototype keys; they are written
 * as JSON text, so `__proto__` stays an own key and numbers past a double (`1e400`) and lone surrogates
 * get through. The same seed gives the same requests: a failing case of test/http/fuzz-routes.test.ts
 * replays exactly.
 */

/** Written in place of this string, unquoted: a number no double holds. */
const HUGE = '\u0001huge'

/** Keys that would pollute a prototype if merged naively, or that look like operators and paths. */
const POISON_KEYS = ['__proto__', 'constructor', 'prototype', '$where', '$set', 'a.b', '$', '', 'id', '_id', '_bsontype']

const WEIRD_STRINGS = ['', ' ', '\u0000', '\ud800', '\udfff', '😀', 'é'.repeat(3), 'x'.repeat(5000), '{"$gt":""}', 'null', '__proto__', '_groups', '-1', '1e400']
const WEIRD_NUMBERS = [-0, -1, 0.5, 2 ** 53 + 2, -(2 ** 63), 1e308, Number.MIN_VALUE, 99_999_999_999]
const MEDIA_TYPES = ['application/json', 'application/merge-patch+json', 'application/json-patch+json']
const ODD_CONTENT_TYPES = [
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/merge-patch+json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/*',
  'garbage',
  '',
  ';',
  ...MEDIA_TYPES,
]
const ID_JUNK = [
  'ffffffffffffffffffffffff',
  '000000000000000000000000',
  'not-an-id',
  '0',
  '-1',
  'FFFFFFFFFFFFFFFFFFFFFFFF',
  'fffffffffffffffffffffff',
  'fffffffffffffffffffffffff',
  '_groups',
  '_batch',
  '_events',
  '__proto__',
  'constructor',
  'null',
  '%00',
  '%E0%A4%A',
  '%2F',
  '%F0%9F%98%80',
  '%ED%A0%80',
  '..',
  '%7B%22%24gt%22%3A%22%22%7D',
  'x'.repeat(101),
  'a'.repeat(9000),
]
const ETAG_JUNK = ['*', '"x"', 'W/"x"', '""', 'garbage', '"a", "b"', 'W/', '*, "x"', '"'.repeat(3), 'x'.repeat(2000)]
const ODD_QUERY_VALUES = ['', ' ', 'x', '0', '-1', '1.5', '1e400', '99999999999999999999', 'NaN', 'Infinity', 'null', '[]', '{}', '\u0000', '😀', 'x'.repeat(3000)]

type Fault = 'method' | 'id' | 'query' | 'header' | 'contentType' | 'body'
const FAULTS: readonly Fault[] = ['method', 'id', 'query', 'query', 'header', 'contentType', 'body', 'body', 'body']

/** What a route takes, as the fuzzer walks it (from the app's OpenAPI document). */
export interface RouteShape {
  method: string
  /** The path with its `{params}`. */
  path: string
  query: string[]
  headers: string[]
  /** Request media types of its body; empty for a route without one. */
  bodyTypes: string[]
}

/** Valid values requests start from, by the path segment naming a collection (`users`, `messages`). */
export interface FuzzPools {
  /** Existing ids of the documents (or items) a path parameter after that segment names. */
  ids: Record<string, string[]>
  /** A valid body of the model written there. */
  samples: Record<string, Record<string, unknown>>
  /** Tags and page cursors the app answered before fuzzing. */
  etags: string[]
  cursors: string[]
}

/** One request, as `inject` takes it. */
export interface FuzzRequest {
  method: string
  url: string
  headers: Record<string, string>
  payload?: string
}

type Json = unknown

/** `object[key] = value` as JSON.parse makes it: an own key, `__proto__` too (an assignment would set the prototype). */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
}

export class BadInputs {
  private readonly next: () => number

  constructor(
    seed: number,
    private readonly pools: FuzzPools,
  ) {
    this.next = seededRandom(seed)
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  int(max: number): number {
    return Math.floor(this.next() * max)
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!
  }

  /** A request to `route`: valid, then given none to three faults. */
  request(route: RouteShape): FuzzRequest {
    const faults = new Set<Fault>()
    const roll = this.next()
    const count = roll < 0.15 ? 0 : roll < 0.75 ? 1 : roll < 0.95 ? 2 : 3
    for (let i = 0; i < count; i++) faults.add(this.pick(FAULTS))
    const method = faults.has('method') ? this.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) : route.method.toUpperCase()
    const url = `${this.path(route.path, faults.has('id'))}${this.queryString(route, faults.has('query'))}`
    const headers = faults.has('header') ? this.oddHeaders(route) : {}
    const takesBody = route.bodyTypes.length > 0
    if (!takesBody && !faults.has('body') && !faults.has('contentType')) return { method, url, headers }
    const type = faults.has('contentType') ? (this.chance(0.35) ? undefined : this.pick(ODD_CONTENT_TYPES)) : this.pick(takesBody ? route.bodyTypes : ['application/json'])
    if (type !== undefined) headers['content-type'] = type
    // Without a Content-Type, a body is 415 before anything reads it: mostly none is sent then.
    if (type === undefined && this.chance(0.6)) return { method, url, headers }
    const payload = faults.has('body') ? this.badBody(route, type) : this.text(this.goodBody(route, type))
    return payload === undefined ? { method, url, headers } : { method, url, headers, payload }
  }

  /** The path with existing ids; with `fault`, one of them junk or an id from another place. */
  private path(template: string, fault: boolean): string {
    const segments = template.split('/')
    const params = segments.flatMap((segment, index) => (segment.startsWith('{') ? [index] : []))
    const wrong = fault && params.length > 0 ? this.pick(params) : -1
    return segments
      .map((segment, index) => {
        if (!segment.startsWith('{')) return segment
        if (index === wrong) return this.chance(0.7) ? this.pick(ID_JUNK) : this.pick(Object.values(this.pools.ids).flat())
        return this.pick(this.pools.ids[segments[index - 1] ?? ''] ?? ['x'])
      })
      .join('/')
  }

  private queryString(route: RouteShape, fault: boolean): string {
    const parts = this.goodQuery(route)
    if (fault) {
      const roll = this.next()
      const name = this.chance(0.1) ? this.pick(['__proto__', 'constructor', 'filters[$gt]', 'limit[]', 'a.b', '', 'x'.repeat(300)]) : this.pick([...route.query, 'filters', 'limit'])
      const value = this.chance(0.4) ? this.pick(ODD_QUERY_VALUES) : this.oddQueryValue(name)
      // A repeated key (a querystring parser makes an array of it), a broken encoding, or one odd value.
      if (roll < 0.15 && parts.length > 0) parts.push(parts[this.int(parts.length)]!)
      else if (roll < 0.2) parts.push(this.pick(['%', '%zz', 'filters=%E0%A4%A', '&&', '=', 'limit', 'filters']))
      else parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    }
    return parts.length === 0 ? '' : `?${parts.join('&')}`
  }

  /** Parameters a list, groups or feed route takes: sometimes none, sometimes some. */
  private goodQuery(route: RouteShape): string[] {
    const sample = this.sample(route)
    const fields = Object.keys(sample).filter((field) => typeof sample[field] === 'string')
    const field = fields.length > 0 ? this.pick(fields) : 'id'
    const parts: string[] = []
    const add = (name: string, value: string) => {
      if (route.query.includes(name)) parts.push(`${name}=${encodeURIComponent(value)}`)
    }
    if (route.query.includes('by')) {
      add('by', field)
      if (this.chance(0.5)) add('metrics', 'count')
    }
    if (this.chance(0.5)) return parts
    if (this.chance(0.5)) add('limit', this.pick(['1', '2', '1000', '1001']))
    if (this.chance(0.3)) add('skip', '1')
    if (this.chance(0.3)) add('sort_by', field)
    if (this.chance(0.2)) add('order_by', this.pick(['ASC', 'DESC']))
    if (this.chance(0.3)) add('fields', field)
    if (this.chance(0.3)) add('filters', JSON.stringify({ [field]: sample[field] }))
    if (this.chance(0.1) && this.pools.cursors.length > 0) add('cursor', this.pick(this.pools.cursors))
    return parts
  }

  private oddQueryValue(name: string): string {
    switch (name) {
      case 'filters':
        return this.filters()
      case 'skip':
      case 'limit':
        return this.pick(['1e3', '0x10', ' 1', '2.0', '-0', String(2 ** 53 + 2), '1001', '0'])
      case 'sort_by':
        return this.pick(['-name', 'password', 'secret', 'nosuch', 'name,email', '__proto__', 'artistIds', 'address.city', 'meta.k', 'tags'])
      case 'order_by':
        return this.pick(['asc', 'up', 'ASC,DESC'])
      case 'sort_dir':
        return this.pick(['1', '-1', '0', '+1'])
      case 'fields':
        return this.pick(['password', 'secret', 'nosuch', ',', 'name,name', 'address.city', '__proto__', 'id,id', 'addresses'])
      case 'cursor':
        return this.cursor()
      case 'by':
        return this.pick(['password', 'secret', 'name,name', 'a,b', 'labelId', 'artistIds', 'address.city', 'tags', 'meta', '__proto__', 'when'])
      case 'metrics':
        return this.pick(['sum:age', 'avg:rank', 'min:name', 'max:password', 'sum:', 'count,count', 'sum:rank,avg:rank', 'x:y', 'sum:__proto__', 'sum:tags', 'max:when'])
      default:
        return this.pick(ODD_QUERY_VALUES)
    }
  }

  private filters(): string {
    const raw = ['{', '[]', '"x"', 'null', '{"name":', "{'a':1}", '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}']
    if (this.chance(0.3)) return this.pick(raw)
    const field = this.pick(['name', 'age', 'id', '_id', 'password', 'secret', 'nosuch', 'title', 'text', 'rank', 'address.city', 'artistIds', 'labelId', 'ownerId', 'owner', 'code', 'when', 'meta.k', '__proto__', '$where'])
    const value = this.chance(0.5) ? this.scalar() : { [this.pick(['$gt', '$in', '$regex', '$exists', '$elemMatch', '$not', '$size', '$where', '$expr', '$eq'])]: this.value(0) }
    let filter: Record<string, unknown> = { [field]: value }
    if (this.chance(0.1)) for (let i = 0; i < this.pick([20, 200]); i++) filter = { [this.pick(['$and', '$or', '$nor'])]: [filter] }
    return this.text(filter)
  }

  private cursor(): string {
    const real = this.pools.cursors
    if (real.length > 0 && this.chance(0.5)) {
      const cursor = this.pick(real)
      // An altered real cursor: one character changed, cut short, or grown.
      const at = this.int(cursor.length)
      return this.pick([`${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`, cursor.slice(0, at), `${cursor}x`])
    }
    return this.pick(['', 'x', 'e30', 'eyJ9', Buffer.from('{"__proto__":{}}').toString('base64url'), 'A'.repeat(2000), '..', '%'])
  }

  /** One or two odd headers: preconditions, `Prefer`, `Last-Event-ID`, the scope's caller, `Accept`. */
  private oddHeaders(route: RouteShape): Record<string, string> {
    const headers: Record<string, string> = {}
    const tag = () => (this.pools.etags.length > 0 && this.chance(0.4) ? this.pick(this.pools.etags) : this.pick(ETAG_JUNK))
    for (let i = 0; i < 1 + this.int(2); i++) {
      const name = this.chance(0.7) && route.headers.length > 0 ? this.pick(route.headers) : this.pick(['if-match', 'if-none-match', 'x-user', 'accept', 'prefer'])
      switch (name) {
        case 'if-match':
        case 'if-none-match':
          headers[name] = tag()
          break
        case 'last-event-id':
          headers[name] = this.pick(['', 'x', '0', '-1', '0000000000000001', '9999999999999999', 'x'.repeat(500), '{"_data":"x"}'])
          break
        case 'prefer':
          headers[name] = this.pick(['count=exact', 'count=none', 'return=minimal', 'count=', 'count=exact, count=none', 'x'.repeat(300)])
          break
        case 'x-user':
          headers[name] = this.pick(['bob', '', 'x'.repeat(300), '__proto__'])
          break
        default:
          headers['accept'] = this.pick(['text/event-stream', 'application/xml', '*/*', ''])
      }
    }
    return headers
  }

  /** The segment naming the collection (or items) a route reads and writes: `users`, `messages`. */
  private collection(route: RouteShape): string {
    const segments = route.path.split('/').filter((segment) => segment !== '' && !segment.startsWith('{') && !segment.startsWith('_'))
    return segments.at(-1) ?? ''
  }

  private sample(route: RouteShape): Record<string, unknown> {
    return this.pools.samples[this.collection(route)] ?? {}
  }

  /** A body the route takes in `type`: a document, a PATCH's fields, a merge patch, a JSON Patch, a batch. */
  private goodBody(route: RouteShape, type: string | undefined): Json {
    const sample = this.sample(route)
    const kind = (type ?? '').split(';')[0]!.trim().toLowerCase()
    if (route.path.endsWith('/_batch')) return { operations: Array.from({ length: 1 + this.int(3) }, () => this.goodOperation(sample, this.pools.ids[this.collection(route)] ?? [])) }
    if (route.method !== 'patch') return { ...sample }
    if (kind === 'application/json-patch+json') return this.goodJsonPatch(sample)
    return this.partial(sample)
  }

  private partial(sample: Record<string, unknown>): Record<string, unknown> {
    const doc: Record<string, unknown> = {}
    for (const field of Object.keys(sample)) if (this.chance(0.4)) doc[field] = sample[field]
    return doc
  }

  private goodJsonPatch(sample: Record<string, unknown>): Json {
    const field = this.pick(Object.keys(sample))
    return [{ op: this.pick(['replace', 'add', 'test']), path: `/${field}`, value: sample[field] }]
  }

  private goodOperation(sample: Record<string, unknown>, ids: string[]): Record<string, unknown> {
    const op = this.pick(['create', 'replace', 'update', 'delete'])
    if (op === 'create') return { op, body: { ...sample } }
    if (op === 'delete') return { op, id: this.pick(ids) }
    if (op === 'replace') return { op, id: this.pick(ids), body: { ...sample } }
    const contentType = this.pick(MEDIA_TYPES)
    return { op, id: this.pick(ids), contentType, body: contentType === MEDIA_TYPES[2] ? this.goodJsonPatch(sample) : this.partial(sample) }
  }

  /** A body with one thing wrong: none, empty, malformed, another JSON value, or a document with bad fields. */
  private badBody(route: RouteShape, type: string | undefined): string | undefined {
    const roll = this.next()
    if (roll < 0.08) return undefined
    if (roll < 0.14) return this.pick(['', ' ', '\n'])
    if (roll < 0.24) return this.pick(['{', '{"a":', 'nul', '[1,2', '"\\u12"', '{"a":1}}', '\u0000', '{"a":1,}', '{"__proto__":', '\ufeff{}', '{"a":1e400}', '{"a":"\\ud800"}'])
    if (roll < 0.32) return this.text(this.value(0))
    const sample = this.sample(route)
    if (route.path.endsWith('/_batch')) return this.text(this.badBatch(sample, this.pools.ids[this.collection(route)] ?? []))
    const kind = (type ?? '').split(';')[0]!.trim().toLowerCase()
    if (kind === 'application/json-patch+json') return this.text(this.badJsonPatch(sample))
    const doc = route.method === 'patch' ? this.partial(sample) : { ...sample }
    this.mutate(doc, Object.keys(sample))
    if (this.chance(0.3)) this.mutate(doc, Object.keys(sample))
    return this.text(doc)
  }

  /** One field dropped, mistyped, deep, poisoned, huge, or a key that should not be there. */
  private mutate(doc: Record<string, unknown>, fields: string[]): void {
    const field = fields.length > 0 && this.chance(0.7) ? this.pick(fields) : this.pick(POISON_KEYS)
    switch (this.int(7)) {
      case 0:
        delete doc[field]
        return
      case 1:
        setOwn(doc, field, this.value(0))
        return
      case 2:
        setOwn(doc, field, this.deep(this.pick([50, 200, 2000])))
        return
      case 3:
        setOwn(doc, field, this.pick([{ polluted: true }, { prototype: { polluted: true } }, { $oid: 'ffffffffffffffffffffffff' }, { _bsontype: 'ObjectId', id: 'aaaaaaaaaaaa' }, { $date: '2020-01-01' }]))
        return
      case 4:
        setOwn(doc, field, Array.from({ length: this.pick([0, 1, 1001, 20_000]) }, (_, index) => (index % 2 === 0 ? index : 'x')))
        return
      case 5:
        setOwn(doc, field, this.pick([{ city: HUGE }, { city: 'x', zip: null }, { city: '\ud800' }, [HUGE], JSON.parse('{"k":{"__proto__":{"polluted":true}}}'), {}]))
        return
      default:
        setOwn(doc, field, this.scalar())
    }
  }

  /** A JSON Patch with one operation wrong: its op, path, from or value, or a key too many. */
  private badJsonPatch(sample: Record<string, unknown>): Json {
    if (this.chance(0.1)) return this.pick([{}, { op: 'add', path: '/x', value: 1 }, [[]], [null], ['add'], []])
    const fields = [...Object.keys(sample), 'id', 'nosuch', '__proto__', 'addresses']
    const pointer = () => {
      const roll = this.next()
      if (roll < 0.5) return `/${this.pick(fields)}`
      if (roll < 0.8) return `/${this.pick(fields)}/${this.pick(['0', '-', '1', '99', '-1', '01', '__proto__', 'polluted', 'a~1b', '~2', 'city'])}`
      return this.pick(['', '/', 'name', '//', '/~', '/__proto__/polluted', '/constructor/prototype/polluted', '/a~0b'])
    }
    const operations = this.goodJsonPatch(sample) as Record<string, unknown>[]
    const operation: Record<string, unknown> = { op: this.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'ADD', 'nope', '']), path: pointer() }
    if (this.chance(0.6)) operation['value'] = this.chance(0.3) ? sample[this.pick(Object.keys(sample))] : this.value(0)
    if (this.chance(0.4)) operation['from'] = pointer()
    if (this.chance(0.1)) delete operation[this.pick(['op', 'path'])]
    if (this.chance(0.1)) setOwn(operation, this.pick(POISON_KEYS), 1)
    operations.splice(this.int(2), 0, operation)
    if (this.chance(0.03)) return Array.from({ length: 5000 }, () => operation)
    return operations
  }

  /** A batch with one operation wrong, or not a batch at all. */
  private badBatch(sample: Record<string, unknown>, ids: string[]): Json {
    if (this.chance(0.15)) return this.pick([{}, { operations: [] }, { operations: {} }, { operations: null }, [], { operations: [1, 'x', null] }, { operations: [{}] }, { atomic: 'x', operations: [] }])
    const operations = Array.from({ length: 1 + this.int(3) }, () => this.goodOperation(sample, ids))
    const operation = operations[this.int(operations.length)]!
    switch (this.int(7)) {
      case 0:
        operation['op'] = this.pick(['read', '', '__proto__', 'CREATE', 5])
        break
      case 1:
        operation['id'] = this.pick([...ID_JUNK, 5, null, {}])
        break
      case 2:
        operation['contentType'] = this.pick(ODD_CONTENT_TYPES)
        break
      case 3:
        operation['ifMatch'] = this.pools.etags.length > 0 && this.chance(0.5) ? this.pick(this.pools.etags) : this.pick([...ETAG_JUNK, 5, null])
        break
      case 4:
        if (operation['contentType'] === MEDIA_TYPES[2]) operation['body'] = this.badJsonPatch(sample)
        else if (typeof operation['body'] === 'object') this.mutate(operation['body'] as Record<string, unknown>, Object.keys(sample))
        else operation['body'] = this.value(0)
        break
      case 5:
        setOwn(operation, this.pick(POISON_KEYS), { polluted: true })
        break
      default:
        return { operations: Array.from({ length: this.pick([101, 1000]) }, () => operation) }
    }
    const body: Record<string, unknown> = { operations }
    if (this.chance(0.5)) body['atomic'] = this.pick([true, false, false, 'false', null, 0])
    return body
  }

  private scalar(): Json {
    switch (this.int(7)) {
      case 0:
        return this.pick(WEIRD_STRINGS)
      case 1:
        return this.pick(WEIRD_NUMBERS)
      case 2:
        return HUGE
      case 3:
        return this.chance(0.5)
      case 4:
        return null
      case 5:
        return this.pick(Object.values(this.pools.ids).flat())
      default:
        return this.pick(['ann', 'x', 'Oslo', 7, 30])
    }
  }

  private value(depth: number): Json {
    const roll = this.next()
    if (roll < 0.6 || depth > 4) return this.scalar()
    if (roll < 0.8) return Array.from({ length: this.int(4) }, () => this.value(depth + 1))
    const entries = Array.from({ length: 1 + this.int(3) }, (): [string, Json] => [this.chance(0.3) ? this.pick(POISON_KEYS) : this.pick(['name', 'a', 'tags', 'city']), this.value(depth + 1)])
    return Object.fromEntries(entries)
  }

  /** Arrays in arrays (or objects in objects), `levels` deep. */
  private deep(levels: number): Json {
    const object = this.chance(0.5)
    let value: Json = 1
    for (let i = 0; i < levels; i++) value = object ? { a: value } : [value]
    return value
  }

  /** JSON text of `value`, with `HUGE` written as `1e400` (Object.fromEntries keeps `__proto__` an own key). */
  private text(value: Json): string {
    return JSON.stringify(value).replaceAll(JSON.stringify(HUGE), '1e400')
  }
}
