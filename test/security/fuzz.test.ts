import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { buildApp, queryString, type TestApp } from '../harness/app.ts'
import { seedDocs } from '../harness/seed.ts'
import { seededRandom } from '../harness/seeded-random.ts'
import { describeEachStore } from '../harness/stores.ts'
import { ACCOUNT_OUT_KEYS, account, accountsRouter, expectPrototypeClean, SECRET } from './fixtures.ts'

/**
 * Random filter trees from the grammar, mixed with junk (forbidden operators, hidden fields,
 * prototype keys, values of the wrong type, deep nesting, huge arrays), sent to a router over a small
 * seeded collection. Whatever the input: never a 500, never a crash, never a hidden value in any
 * response, and every 200 is a JSON array of output-model documents.
 * Reproduce a failure with `FUZZ_SEED=<seed> node --import tsx --test test/security/fuzz.test.ts`.
 */
const SEED = Number(process.env['FUZZ_SEED'] ?? 0x5ec0_0005)
const CASES = 3000

const VISIBLE = ['name', 'email', 'age', 'tags', 'tags.0', 'profile', 'profile.city', 'history', 'history.at', 'history.note', 'history.0.at', 'managerId', 'meta', 'meta.plan', 'meta.level', 'id', '_id']
const HIDDEN = ['password', 'profile.secret', 'history.token', 'history.0.token', 'extra', 'extra.key', 'nosuch', 'profile.nosuch.deeper']
const JUNK_KEYS = ['__proto__', 'constructor', 'prototype', '_bsontype', 'constructor.prototype', '__proto__.polluted', 'a..b', '.name', 'name.', '', ' ', 'name.$', 'name.$[]', '$', '\u0000', 'na\u0000me', 'ünï', 'x'.repeat(300)]
const ALLOWED_OPS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists', '$regex', '$options', '$not', '$elemMatch', '$all', '$size']
const LOGICAL_OPS = ['$and', '$or', '$nor']
const FORBIDDEN_OPS = ['$where', '$function', '$accumulator', '$expr', '$jsonSchema', '$text', '$comment', '$near', '$nearSphere', '$geoWithin', '$geoIntersects', '$bitsAllSet', '$bitsAnySet', '$mod', '$type', '$sampleRate', '$set', '$unset', '$oid', '$date', '$numberLong', '$binary', '$regularExpression', '$', '$$ROOT', '$IN', '$Eq', '$search', '$meta', '$slice', '$rand']
const STRINGS = ['alice', 'bob', 'carol', 'Oslo', 'member', 'joined', 'free', '', ' ', 'S', 'SEC', 'A', 'a'.repeat(40), '\u0000', '😀', 'null', 'true', '{"$where":"1"}', '$where', 'this.password', 'function(){return true}']
type FieldKind = 'text' | 'number' | 'id'
const TYPED_FIELDS: [string, FieldKind][] = [
  ['name', 'text'],
  ['email', 'text'],
  ['age', 'number'],
  ['tags', 'text'],
  ['profile.city', 'text'],
  ['history.at', 'number'],
  ['history.note', 'text'],
  ['managerId', 'id'],
  ['id', 'id'],
  ['meta.plan', 'text'],
  ['meta.level', 'number'],
]
const REGEXES = ['^a', 'ice$', '.*', '^(ab)+$', '[a-z]+', 'a|b', '(a+)+$', '(a|a)*b', '(.*a){20}', '(', '[', '\\', '(?<n>a)\\k<n>', '(?=a)', 'a{1,2}{3}', '^S', '^SEC', '\\p{L}', 'x'.repeat(300)]
const REGEX_CHARS = '()[]{}*+?.|^$\\aAbS-,0123456789:=!<>'
const HEX = '0123456789abcdefABCDEF'

class Generator {
  constructor(
    private readonly next: () => number,
    private readonly ids: string[],
  ) {}

  chance(p: number): boolean {
    return this.next() < p
  }

  int(max: number): number {
    return Math.floor(this.next() * max)
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!
  }

  hex(length: number): string {
    return Array.from({ length }, () => this.pick([...HEX])).join('')
  }

  key(): string {
    const roll = this.next()
    if (roll < 0.7) return this.pick(VISIBLE)
    if (roll < 0.85) return this.pick(HIDDEN)
    return this.pick(JUNK_KEYS)
  }

  scalar(): unknown {
    switch (this.int(10)) {
      case 0:
      case 1:
        return this.pick(STRINGS)
      case 2:
        return this.int(200) - 50
      case 3:
        return this.pick([0.5, -0, 1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e-300])
      case 4:
        return this.chance(0.5)
      case 5:
        return null
      case 6:
        return this.chance(0.7) ? this.pick(this.ids) : this.pick(this.ids).toUpperCase()
      case 7:
        return this.hex(this.pick([23, 24, 25]))
      case 8:
        return this.pick([{ $oid: this.hex(24) }, { _bsontype: 'ObjectId', id: 'aaaaaaaaaaaa' }, { $date: '2020-01-01' }, { $numberLong: '1' }])
      default:
        return this.pick(['alice', 'bob', 30, 35, 'Oslo'])
    }
  }

  value(depth: number): unknown {
    const roll = this.next()
    if (roll < 0.65 || depth > 12) return this.scalar()
    if (roll < 0.8) return Array.from({ length: this.int(4) }, () => this.value(depth + 1))
    if (roll < 0.82) return Array.from({ length: this.pick([1001, 2500]) }, () => this.scalar())
    return this.object(depth + 1, () => this.value(depth + 2))
  }

  /** An object with random keys, built so `__proto__` stays an own key (JSON.stringify keeps it). */
  object(depth: number, item: () => unknown): Record<string, unknown> {
    const entries = Array.from({ length: 1 + this.int(3) }, (): [string, unknown] => {
      const key = this.chance(0.2) ? this.pick([...FORBIDDEN_OPS, ...JUNK_KEYS, ...ALLOWED_OPS]) : this.key()
      return [key, depth > 14 ? this.scalar() : item()]
    })
    return Object.fromEntries(entries)
  }

  regex(): string {
    if (this.chance(0.6)) return this.pick(REGEXES)
    return Array.from({ length: this.int(20) }, () => this.pick([...REGEX_CHARS])).join('')
  }

  operand(op: string, depth: number): unknown {
    if (this.chance(0.15)) return this.value(depth)
    switch (op) {
      case '$in':
      case '$nin':
      case '$all': {
        const length = this.chance(0.05) ? this.pick([999, 1000, 1001, 10_000]) : this.int(5)
        return Array.from({ length }, () => this.scalar())
      }
      case '$exists':
        return this.chance(0.5)
      case '$size':
        return this.pick([0, 1, 2, -1, 1.5, 1e9])
      case '$regex':
        return this.regex()
      case '$options':
        return Array.from({ length: this.int(4) }, () => this.pick([...'imsxguyd$'])).join('')
      case '$not':
        return this.operators(depth + 1)
      case '$elemMatch':
        return this.chance(0.5) ? this.document(depth + 1) : this.operators(depth + 1)
      default:
        return this.scalar()
    }
  }

  operators(depth: number): Record<string, unknown> {
    if (depth > 14) return { $eq: this.scalar() }
    const count = 1 + this.int(3)
    const entries = Array.from({ length: count }, (): [string, unknown] => {
      const roll = this.next()
      const op = roll < 0.8 ? this.pick(ALLOWED_OPS) : roll < 0.93 ? this.pick(FORBIDDEN_OPS) : this.pick([...JUNK_KEYS, ...VISIBLE])
      return [op, this.operand(op, depth)]
    })
    if (this.chance(0.3)) entries.push(['$regex', this.regex()], ['$options', this.pick(['i', 'im', 'x', 'g', ''])])
    return Object.fromEntries(entries)
  }

  document(depth: number): Record<string, unknown> {
    if (depth > 14) return { [this.pick(VISIBLE)]: this.scalar() }
    const entries = Array.from({ length: 1 + this.int(3) }, (): [string, unknown] => {
      const roll = this.next()
      if (roll < 0.2) {
        const op = this.pick(LOGICAL_OPS)
        if (this.chance(0.1)) return [op, this.pick([[], {}, 'x', [1], [[]], null])]
        return [op, Array.from({ length: 1 + this.int(3) }, () => this.document(depth + 1))]
      }
      if (roll < 0.27) return [this.pick(FORBIDDEN_OPS), this.value(depth + 1)]
      const key = this.key()
      return [key, this.chance(0.55) ? this.operators(depth + 1) : this.value(depth + 1)]
    })
    return Object.fromEntries(entries)
  }

  /** A value of the right type for a visible field. */
  typed(kind: FieldKind): unknown {
    switch (kind) {
      case 'text':
        return this.pick(['alice', 'bob', 'carol', 'dave', 'Oslo', 'member', 'joined', 'free', 'pro', ''])
      case 'number':
        return this.pick([0, 1, 3, 5, 21, 28, 35, -1, 2.5])
      case 'id':
        return this.pick(this.ids)
    }
  }

  /** A condition on a visible field that the grammar accepts. */
  condition(kind: FieldKind, depth: number): unknown {
    switch (this.int(kind === 'text' ? 9 : 7)) {
      case 0:
        return this.typed(kind)
      case 1:
        return { [this.pick(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte'])]: this.typed(kind) }
      case 2:
        return { [this.pick(['$in', '$nin'])]: Array.from({ length: 1 + this.int(4) }, () => this.typed(kind)) }
      case 3:
        return { $exists: this.chance(0.8) }
      case 4:
        return depth > 6 ? { $eq: this.typed(kind) } : { $not: { $in: [this.typed(kind), null] } }
      case 5:
        return { $gte: this.typed(kind), $lte: this.typed(kind) }
      case 6:
        return null
      case 7:
        return { $regex: this.pick(['^a', 'o', 'e$', '^(ab)+', '[a-c]', '^$']), ...(this.chance(0.3) ? { $options: this.pick(['i', 'm', 's', 'x', 'im', 'ix']) } : {}) }
      default:
        return { $not: { $regex: this.pick(['^a', 'b']) } }
    }
  }

  /** A filter tree entirely inside the grammar, over visible fields with well-typed values. */
  valid(depth: number): Record<string, unknown> {
    const entries = Array.from({ length: 1 + this.int(2) }, (): [string, unknown] => {
      const roll = this.next()
      if (roll < 0.2 && depth < 6) return [this.pick(LOGICAL_OPS), Array.from({ length: 1 + this.int(3) }, () => this.valid(depth + 1))]
      if (roll < 0.3) return ['tags', this.pick([{ $all: ['member'] }, { $size: this.int(3) }, { $elemMatch: { $regex: '^a' } }, 'member'])]
      if (roll < 0.38) return ['history', { $elemMatch: { at: this.condition('number', depth + 1), note: this.condition('text', depth + 1) } }]
      const [field, kind] = this.pick(TYPED_FIELDS)
      return [field, this.condition(kind, depth + 1)]
    })
    return Object.fromEntries(entries)
  }

  /** Wraps a filter in many logical or `$not` levels. */
  deep(filter: Record<string, unknown>): Record<string, unknown> {
    const levels = this.pick([8, 9, 10, 11, 12, 30, 60, 200])
    let wrapped: Record<string, unknown> = filter
    if (this.chance(0.5)) {
      for (let i = 0; i < levels; i += 1) wrapped = { [this.pick(LOGICAL_OPS)]: [wrapped] }
      return wrapped
    }
    let condition: unknown = { $eq: this.scalar() }
    for (let i = 0; i < levels; i += 1) condition = { $not: condition }
    return { [this.pick(VISIBLE)]: condition }
  }

  /** The raw `filters` parameter of one case. */
  filters(): string {
    const roll = this.next()
    if (roll < 0.04) return this.pick(['[]', '"x"', '123', 'null', 'true', '{', '{"a":1', "{'a':1}", 'NaN', '', '[{"name":"alice"}]', '{"__proto__":{"polluted":true}}'])
    if (roll < 0.45) return JSON.stringify(this.valid(1))
    const tree = this.document(1)
    return JSON.stringify(roll < 0.53 ? this.deep(tree) : tree)
  }

  /** Sometimes sort and page parameters as well, valid or not. */
  params(): Record<string, string | number> {
    const params: Record<string, string | number> = {}
    if (this.chance(0.2)) params['sort_by'] = this.chance(0.7) ? this.pick(VISIBLE) : this.pick([...HIDDEN, ...JUNK_KEYS, ...FORBIDDEN_OPS])
    if (this.chance(0.1)) params['order_by'] = this.pick(['ASC', 'desc', 'up', ''])
    if (this.chance(0.1)) params['sort_dir'] = this.pick(['1', '-1', '0', 'x'])
    if (this.chance(0.15)) params['skip'] = this.pick(['0', '1', '2', '1e9', '-1', '1.5', 'x', '1e30'])
    if (this.chance(0.15)) params['limit'] = this.pick(['1', '2', '1000', '1001', '1e9', '0', '-1', 'x'])
    return params
  }
}

/** What a failing case looked like, for the assertion message. */
interface Failure {
  case: number
  url: string
  problem: string
  status: number
  body: string
}

function check(res: LightMyRequestResponse): string | undefined {
  if (res.statusCode >= 500) return 'server error'
  if (!/^application\/json/.test(String(res.headers['content-type']))) return 'not JSON'
  if (res.body.includes(SECRET)) return 'hidden value in the response'
  let body: unknown
  try {
    body = JSON.parse(res.body)
  } catch {
    return 'unparsable JSON'
  }
  if (res.statusCode === 200) {
    if (!Array.isArray(body)) return '200 without a JSON array'
    for (const doc of body as Record<string, unknown>[]) {
      const extra = Object.keys(doc).filter((key) => !ACCOUNT_OUT_KEYS.has(key))
      if (extra.length > 0) return `fields outside the output model: ${extra.join(', ')}`
    }
    if (/"(password|secret|token|extra)"/.test(res.body)) return 'hidden field name in a document'
    return undefined
  }
  if (res.statusCode < 400) return `unexpected status ${res.statusCode}`
  if (typeof body !== 'object' || body === null || !('detail' in body)) return 'error without detail'
  return undefined
}

describeEachStore(`fuzz: ${CASES} random filters [seed ${SEED}]`, (mode) => {
  let t: TestApp
  let ids: string[]
  before(async () => {
    t = await buildApp(mode, accountsRouter)
    const docs = await seedDocs(t.app, '/accounts', [account('alice'), account('bob', { tags: [] }), account('carol', { age: 35 })])
    const manager = docs[0].id
    await seedDocs(t.app, '/accounts', [account('dave', { managerId: manager, meta: { plan: 'pro', nested: { deep: [1, 2] } } })])
    ids = [...docs.map((doc) => String(doc.id)), manager]
  })
  after(() => t.close())

  it(`never answers 500, crashes or leaks a hidden field (seed ${SEED})`, async () => {
    const generator = new Generator(seededRandom(SEED), ids)
    const failures: Failure[] = []
    const statuses = new Map<number, number>()
    for (let i = 0; i < CASES; i += 1) {
      const params = { filters: generator.filters(), ...generator.params() }
      const url = `/accounts${queryString(params)}`
      const res = await t.app.inject({ method: 'GET', url })
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
      const problem = check(res)
      if (problem !== undefined && failures.length < 10) {
        failures.push({ case: i, url: decodeURIComponent(url).slice(0, 600), problem, status: res.statusCode, body: res.body.slice(0, 300) })
      }
    }
    expectPrototypeClean()
    assert.deepEqual(failures, [], `seed ${SEED}: ${failures.length} failing case(s)`)
    // The mix must exercise both sides of the grammar, or the fuzzer proves nothing.
    assert.ok((statuses.get(200) ?? 0) >= CASES / 5, `too few accepted filters: ${JSON.stringify([...statuses])}`)
    assert.ok((statuses.get(422) ?? 0) >= CASES / 4, `too few refused filters: ${JSON.stringify([...statuses])}`)
    const alive = await t.app.inject({ method: 'GET', url: '/accounts' })
    assert.equal(alive.statusCode, 200, alive.body)
    assert.equal(alive.json().length, 4)
  })
})
