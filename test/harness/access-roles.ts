import type { FastifyRequest } from 'fastify'
import type { CRUDRouterOptions } from 'fastify-mongo-crud'
import { seededRandom } from './seeded-random.ts'

/**
 * Generated `access` policies (issue 34, item 5) and what they decide, computed here from the policy's
 * own words (docs/security.md, Access policy): the model of the differential test
 * (test/security/access-differential.test.ts). A caller sends its claims as JSON in `x-test-claims`.
 */

export type AccessRole = NonNullable<CRUDRouterOptions['access']>[number]
export type Op = 'read' | 'create' | 'update' | 'delete'

/** The model's fields besides the id; `owner` is never hidden nor read-only (the brief's rule). */
export const FIELDS = ['title', 'owner', 'published', 'team', 'secret', 'score'] as const
export type Field = (typeof FIELDS)[number]
const NON_OWNER: readonly Field[] = ['title', 'published', 'team', 'secret', 'score']

export const CLAIMS_HEADER = 'x-test-claims'

/** What `accessClaims` is in these tests: the JSON object of `x-test-claims`, undefined without one. */
export function claimsFromHeader(request: FastifyRequest): Record<string, unknown> | undefined {
  const raw = request.headers[CLAIMS_HEADER]
  if (typeof raw !== 'string') return undefined
  const parsed: unknown = JSON.parse(raw)
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined
}

/** A value of a condition: a literal, or a placeholder read from the caller. */
export type Value = string | number | boolean | { claim: string } | { header: string }

/** One condition of a grant, in the closed grammar. */
export type Cond =
  | { kind: 'eq', field: Field, value: Value }
  | { kind: 'ne', field: Field, value: Value }
  | { kind: 'in', field: Field, values: (string | number)[] }
  | { kind: 'gte', field: Field, value: number }
  | { kind: 'or', items: Cond[] }

/** `true`, `false`, or the conditions of a filter, ANDed. */
export type Grant = boolean | Cond[]

export type When = { claim: string, equals?: string | string[] } | { header: string, equals?: string | string[] }

export interface GenRole {
  role: string
  when: When | undefined
  grants: Record<Op, Grant>
  hidden: Field[]
  readOnly: Field[]
}

export interface Policy {
  roles: GenRole[]
  /** Every field some role does not see: never filterable, sortable nor grouped. */
  hiddenByAnyRole: Set<Field>
}

export interface GenCaller {
  name: string
  /** Absent: the caller sends no credentials. */
  claims: Record<string, string> | undefined
  /** Headers of its own (a gateway's), besides its claims. */
  extra: Record<string, string>
}

export type StoredDoc = { id: string } & Partial<Record<Field, string | number | boolean>>

export interface WriteOp {
  kind: 'update' | 'replace' | 'delete' | 'create' | 'item' | 'jsonPatch'
  /** Index of the seeded document (update, replace, delete; the parent of an embedded item). */
  doc?: number
  body?: Record<string, unknown>
  /** A JSON Patch (RFC 6902): a `test` of one field, then a `replace` of the title. */
  patch?: { op: string, path: string, value: unknown }[]
}

export interface Scenario {
  seed: number
  policy: Policy
  docs: StoredDoc[]
  callers: GenCaller[]
  /** Each caller's writes, by caller index. */
  writes: WriteOp[][]
  /** One change of each document for the event feed, by document index (applied as `$set`). */
  changes: Record<string, unknown>[]
}

const OWNERS = ['u1', 'u2', 'u3', 'u4']
const TEAMS = ['t1', 't2', 't3']
const ROLE_CLAIMS = ['member', 'editor', 'viewer', 'guest']

/** The headers a caller sends. */
export function headersOf(caller: GenCaller): Record<string, string> {
  return { ...caller.extra, ...(caller.claims === undefined ? {} : { [CLAIMS_HEADER]: JSON.stringify(caller.claims) }) }
}

/** The whole scenario of one seed: policy, documents, callers, writes and changes. */
export function generateScenario(seed: number): Scenario {
  const random = seededRandom(seed)
  const chance = (p: number) => random() < p
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const int = (below: number) => Math.floor(random() * below)

  const policy = generatePolicy(random)
  const docs = Array.from({ length: 20 }, (_, i): StoredDoc => {
    const doc: StoredDoc = { id: objectIdHex(seed, i), title: `doc-${i}`, owner: pick(OWNERS) }
    if (chance(0.85)) doc.published = chance(0.5)
    if (chance(0.85)) doc.team = pick(TEAMS)
    if (chance(0.8)) doc.secret = `secret-${i}`
    if (chance(0.85)) doc.score = int(100)
    return doc
  })
  const callers: GenCaller[] = [{ name: 'c0', claims: undefined, extra: chance(0.3) ? { 'x-gateway': 'yes' } : {} }]
  for (let i = 1; i <= 5; i++) {
    const claims: Record<string, string> = {}
    if (chance(0.85)) claims['sub'] = pick(OWNERS)
    if (chance(0.85)) claims['role'] = pick(ROLE_CLAIMS)
    if (chance(0.8)) claims['team'] = pick(TEAMS)
    const extra: Record<string, string> = {}
    if (chance(0.4)) extra['x-team'] = pick(TEAMS)
    if (chance(0.3)) extra['x-gateway'] = 'yes'
    callers.push({ name: `c${i}`, claims, extra })
  }
  const changes = docs.map((doc, i) => {
    const change: Record<string, unknown> = { title: `${doc.title}-v2`, score: int(100) }
    if (chance(0.3)) {
      const moved = pick(['published', 'team', 'owner'] as const)
      change[moved] = moved === 'published' ? !(doc.published ?? false) : moved === 'team' ? pick(TEAMS) : pick(OWNERS)
    }
    if (chance(0.1)) change['secret'] = `changed-secret-${i}`
    return change
  })
  const changed = docs.map((doc, i) => ({ ...doc, ...changes[i] }) as StoredDoc)
  const writes = callers.map((caller, c) => generateWrites(random, policy, caller, c, changed))
  return { seed, policy, docs, callers, writes, changes }
}

/**
 * A caller's writes, in a random order: half of each kind random (refusals of every sort), half made to
 * pass the policy as the documents stand after the feed's changes (a field the role may set, a body
 * that satisfies its filters), so that successes are exercised as much as refusals.
 */
function generateWrites(random: () => number, policy: Policy, caller: GenCaller, c: number, docs: readonly StoredDoc[]): WriteOp[] {
  const chance = (p: number) => random() < p
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const int = (below: number) => Math.floor(random() * below)
  const role = roleOf(policy, caller)
  const settable = (field: Field) => role === undefined || (!role.hidden.includes(field) && !role.readOnly.includes(field))
  const value = (field: Field, i: number): unknown => {
    switch (field) {
      case 'title':
        return `title-${i}-${int(1000)}`
      case 'owner':
        return pick(OWNERS)
      case 'published':
        return chance(0.5)
      case 'team':
        return pick(TEAMS)
      case 'secret':
        return `changed-${i}`
      case 'score':
        return int(100)
    }
  }
  const body = (i: number, fields: readonly Field[]) => Object.fromEntries([...new Set(fields)].map((field) => [field, value(field, i)]))
  /** A document the role may `op` (as the documents stand before the writes), or any. */
  const target = (op: Op) => {
    const grant = role?.grants[op] ?? false
    const allowed = docs.flatMap((doc, i) => (grantHolds(grant, doc, caller) ? [i] : []))
    return allowed.length > 0 ? pick(allowed) : int(docs.length)
  }
  /** Values that satisfy the usual filters: the caller's own owner and team, published. */
  const fitting = (): Record<string, unknown> => {
    const fit: Record<string, unknown> = { published: true }
    const team = caller.claims?.['team'] ?? caller.extra['x-team']
    if (team !== undefined) fit['team'] = team
    if (caller.claims?.['sub'] !== undefined && chance(0.5)) fit['owner'] = caller.claims['sub']
    return Object.fromEntries(Object.entries(fit).filter(([field]) => field === 'owner' || settable(field as Field)))
  }
  const ops: WriteOp[] = []
  const n = c * 20
  ops.push({ kind: 'update', doc: int(docs.length), body: body(n, [pick(NON_OWNER), ...(chance(0.3) ? [pick(FIELDS)] : [])]) })
  ops.push({ kind: 'update', doc: int(docs.length), body: body(n + 1, [pick(NON_OWNER)]) })
  for (let k = 2; k < 4; k++) {
    const safe = (['title', 'secret', 'score'] as const).filter(settable)
    ops.push({ kind: 'update', doc: target('update'), body: body(n + k, safe.length > 0 ? [pick(safe)] : [pick(NON_OWNER)]) })
  }
  // A PUT: a whole body of the fields the role sees (those it does not see or may not set are kept), or any fields.
  const i = target('update')
  const shown = Object.fromEntries(Object.entries(docs[i]!).filter(([field]) => field !== 'id' && settable(field as Field)))
  ops.push({ kind: 'replace', doc: i, body: { ...shown, title: `replaced-${n}` } })
  ops.push({ kind: 'replace', doc: int(docs.length), body: body(n + 5, ['title', ...FIELDS.filter(() => chance(0.5))]) })
  ops.push({ kind: 'delete', doc: int(docs.length) })
  ops.push({ kind: 'delete', doc: target('delete') })
  // A JSON Patch testing a field's value (one the role may not see, too) before it changes the title.
  for (const doc of [target('update'), int(docs.length)]) {
    const field = pick(FIELDS)
    ops.push({ kind: 'jsonPatch', doc, patch: [{ op: 'test', path: `/${field}`, value: docs[doc]![field] ?? null }, { op: 'replace', path: '/title', value: `patched-${n}-${doc}` }] })
  }
  // A PATCH of the embedded item of a document: an update of its parent.
  ops.push({ kind: 'item', doc: int(docs.length), body: { label: `label-${n}` } })
  ops.push({ kind: 'item', doc: target('update'), body: { label: `label-${n + 1}` } })
  const optional = NON_OWNER.filter((field) => field !== 'title' && chance(0.4))
  ops.push({ kind: 'create', body: { ...body(n + 8, ['title', ...optional]), owner: caller.claims?.['sub'] !== undefined && chance(0.7) ? caller.claims['sub'] : pick(OWNERS) } })
  ops.push({ kind: 'create', body: { ...body(n + 9, ['title', ...(['secret', 'score'] as const).filter((field) => settable(field) && chance(0.5))]), ...fitting() } })
  // Interleaved, so creates, updates and deletes meet the documents others changed.
  return ops.map((op) => ({ op, key: random() })).sort((a, b) => a.key - b.key).map(({ op }) => op)
}

function generatePolicy(random: () => number): Policy {
  const chance = (p: number) => random() < p
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const count = 2 + Math.floor(random() * 3)
  // The fields the policy's filters may read: a field some role hides cannot be one (setup error).
  const filterFields = new Set<Field>(['owner'])
  for (const field of ['published', 'team', 'score'] as const) if (chance(0.6)) filterFields.add(field)
  const conditions = conditionPool(filterFields)
  const condition = (depth: number): Cond => {
    if (depth === 0 && chance(0.15)) return { kind: 'or', items: [condition(1), condition(1)] }
    return pick(conditions)
  }
  const grant = (): Grant => {
    const roll = random()
    if (roll < 0.3) return true
    if (roll < 0.5) return false
    return chance(0.3) ? [condition(0), condition(0)] : [condition(0)]
  }
  const hideable = NON_OWNER.filter((field) => !filterFields.has(field))
  const roles: GenRole[] = Array.from({ length: count }, (_, i): GenRole => {
    const last = i === count - 1
    const hidden = hideable.filter(() => chance(0.3))
    return {
      role: `r${i}`,
      when: last && chance(0.3) ? undefined : generateWhen(random),
      grants: { read: grant(), create: grant(), update: grant(), delete: grant() },
      hidden,
      readOnly: NON_OWNER.filter((field) => !hidden.includes(field) && chance(0.2)),
    }
  })
  return { roles, hiddenByAnyRole: new Set(roles.flatMap((role) => role.hidden)) }
}

function conditionPool(filterFields: ReadonlySet<Field>): Cond[] {
  const pool: Cond[] = [
    { kind: 'eq', field: 'owner', value: { claim: 'sub' } },
    { kind: 'eq', field: 'owner', value: { claim: 'sub' } },
    { kind: 'ne', field: 'owner', value: 'u4' },
  ]
  if (filterFields.has('published')) pool.push({ kind: 'eq', field: 'published', value: true }, { kind: 'eq', field: 'published', value: true }, { kind: 'ne', field: 'published', value: false })
  if (filterFields.has('team')) {
    pool.push(
      { kind: 'eq', field: 'team', value: { claim: 'team' } },
      { kind: 'eq', field: 'team', value: { claim: 'team' } },
      { kind: 'eq', field: 'team', value: { header: 'x-team' } },
      { kind: 'in', field: 'team', values: ['t1', 't2'] }
    )
  }
  if (filterFields.has('score')) pool.push({ kind: 'gte', field: 'score', value: 50 })
  return pool
}

function generateWhen(random: () => number): When {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!
  const roll = random()
  if (roll < 0.5) return { claim: 'role', equals: random() < 0.25 ? [pick(ROLE_CLAIMS), pick(ROLE_CLAIMS)] : pick(ROLE_CLAIMS) }
  if (roll < 0.65) return { claim: 'team', equals: pick(TEAMS) }
  if (roll < 0.85) return { claim: 'sub' }
  return { header: 'x-gateway', equals: 'yes' }
}

/** A deterministic ObjectId per seed and document. */
export function objectIdHex(seed: number, i: number): string {
  return `${(seed >>> 0).toString(16).padStart(8, '0')}${'0'.repeat(10)}${i.toString(16).padStart(6, '0')}`
}

/** The policy as the router's `access` option takes it. */
export function accessOption(policy: Policy): AccessRole[] {
  return policy.roles.map((role) => ({
    role: role.role,
    ...(role.when === undefined ? {} : { when: role.when }),
    read: grantJson(role.grants.read),
    create: grantJson(role.grants.create),
    update: grantJson(role.grants.update),
    delete: grantJson(role.grants.delete),
    hiddenFields: role.hidden,
    readOnlyFields: role.readOnly,
  }))
}

function grantJson(grant: Grant): boolean | Record<string, unknown> {
  if (typeof grant === 'boolean') return grant
  const jsons = grant.map(condJson)
  // Conditions on distinct fields are one object (as a policy is usually written); otherwise $and.
  const keys = jsons.flatMap((json) => Object.keys(json))
  if (new Set(keys).size === keys.length) return Object.assign({}, ...jsons)
  return { $and: jsons }
}

function valueJson(value: Value): unknown {
  if (typeof value !== 'object') return value
  return 'claim' in value ? { $claim: value.claim } : { $header: value.header }
}

function condJson(cond: Cond): Record<string, unknown> {
  switch (cond.kind) {
    case 'eq':
      return { [cond.field]: valueJson(cond.value) }
    case 'ne':
      return { [cond.field]: { $ne: valueJson(cond.value) } }
    case 'in':
      return { [cond.field]: { $in: cond.values } }
    case 'gte':
      return { [cond.field]: { $gte: cond.value } }
    case 'or':
      return { $or: cond.items.map(condJson) }
  }
}

// ---------------------------------------------------------------------------------------------------
// The model: what the policy decides, computed from its words.

/** The values of a caller as the policy reads them. */
function claimValue(caller: GenCaller, name: string): string | undefined {
  return caller.claims?.[name]
}

function headerValue(caller: GenCaller, name: string): string | undefined {
  const headers = headersOf(caller)
  return headers[name.toLowerCase()]
}

function whenHolds(when: When | undefined, caller: GenCaller): boolean {
  if (when === undefined) return true
  const value = 'claim' in when ? claimValue(caller, when.claim) : headerValue(caller, when.header)
  if (value === undefined) return false
  if (when.equals === undefined) return value !== ''
  return (Array.isArray(when.equals) ? when.equals : [when.equals]).includes(value)
}

/** The role that applies to the caller: the first whose `when` holds. */
export function roleOf(policy: Policy, caller: GenCaller): GenRole | undefined {
  return policy.roles.find((role) => whenHolds(role.when, caller))
}

/** What a caller no role applies to is answered: 401 without credentials, else 403. */
export function refusalOf(caller: GenCaller): 401 | 403 {
  return caller.claims === undefined ? 401 : 403
}

/** A placeholder's value for the caller; undefined when it lacks it (the grant then matches nothing). */
function resolve(value: Value, caller: GenCaller): string | number | boolean | undefined {
  if (typeof value !== 'object') return value
  const found = 'claim' in value ? claimValue(caller, value.claim) : headerValue(caller, value.header)
  return found === '' ? undefined : found
}

function placeholdersResolve(grant: Cond[], caller: GenCaller): boolean {
  const all = (cond: Cond): boolean => {
    if (cond.kind === 'or') return cond.items.every(all)
    if (cond.kind === 'eq' || cond.kind === 'ne') return resolve(cond.value, caller) !== undefined
    return true
  }
  return grant.every(all)
}

function condHolds(cond: Cond, doc: Record<string, unknown>, caller: GenCaller): boolean {
  switch (cond.kind) {
    case 'eq':
      return Object.hasOwn(doc, cond.field) && doc[cond.field] === resolve(cond.value, caller)
    case 'ne':
      return doc[cond.field] !== resolve(cond.value, caller)
    case 'in':
      return (cond.values as unknown[]).includes(doc[cond.field])
    case 'gte': {
      const value = doc[cond.field]
      return typeof value === 'number' && value >= cond.value
    }
    case 'or':
      return cond.items.some((item) => condHolds(item, doc, caller))
  }
}

/** Whether a (non-false) grant lets the caller `op` this document. */
export function grantHolds(grant: Grant, doc: Record<string, unknown>, caller: GenCaller): boolean {
  if (typeof grant === 'boolean') return grant
  if (!placeholdersResolve(grant, caller)) return false
  return grant.every((cond) => condHolds(cond, doc, caller))
}

/** The top-level fields a grant fixes to one value by equality (filled on create, settable when read-only). */
export function fixedFields(grant: Grant, caller: GenCaller): Map<string, string | number | boolean> {
  const fixed = new Map<string, string | number | boolean>()
  if (typeof grant === 'boolean' || !placeholdersResolve(grant, caller)) return fixed
  for (const cond of grant) {
    if (cond.kind !== 'eq') continue
    const value = resolve(cond.value, caller)
    if (value !== undefined) fixed.set(cond.field, value)
  }
  return fixed
}

/** A document as the role sees it. */
export function shownTo(role: GenRole, doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([field]) => !role.hidden.includes(field as Field)))
}

export interface Expected {
  status: number
  body?: Record<string, unknown>
  /** What the status means, for messages. */
  why: string
}

/** GET <prefix>/{id} as the caller, on the document as stored (undefined: missing). */
export function expectedGet(policy: Policy, caller: GenCaller, doc: StoredDoc | undefined): Expected {
  const role = roleOf(policy, caller)
  if (role === undefined) return { status: refusalOf(caller), why: 'no role applies' }
  const grant = role.grants.read
  if (grant === false) return { status: 403, why: `role ${role.role} may not read` }
  if (doc === undefined) return { status: 400, why: 'missing' }
  if (!grantHolds(grant, doc, caller)) return { status: 400, why: `role ${role.role}'s read filter does not hold` }
  return { status: 200, body: shownTo(role, doc), why: `role ${role.role} reads it` }
}

/** A field the role may not send in a body: hidden (422 as unknown) or read-only and not fixed by the op's filter. */
function refusedField(role: GenRole, fields: readonly string[], fixed: ReadonlyMap<string, unknown>): string | undefined {
  return fields.find((field) => role.hidden.includes(field as Field) || (role.readOnly.includes(field as Field) && !fixed.has(field)))
}

/**
 * Whether a write of the role reaches a document: its own filter and its `read` filter hold (a role writes
 * only what it may read, so a write's answer never shows what GET would not).
 */
function writeHolds(role: GenRole, grant: GenRole['grants']['update'], doc: Record<string, unknown>, caller: GenCaller): boolean {
  return grant !== false && role.grants.read !== false && grantHolds(grant, doc, caller) && grantHolds(role.grants.read, doc, caller)
}

/** PATCH <prefix>/{id} with a JSON body of top-level fields. */
export function expectedUpdate(policy: Policy, caller: GenCaller, doc: StoredDoc | undefined, body: Record<string, unknown>): Expected {
  const role = roleOf(policy, caller)
  if (role === undefined) return { status: refusalOf(caller), why: 'no role applies' }
  const grant = role.grants.update
  if (grant === false) return { status: 403, why: `role ${role.role} may not update` }
  const refused = refusedField(role, Object.keys(body), fixedFields(grant, caller))
  if (refused !== undefined) return { status: 422, why: `role ${role.role} may not set ${refused}` }
  if (role.grants.read === false) return { status: 403, why: `role ${role.role} may not read, so may not update` }
  if (doc === undefined || !writeHolds(role, grant, doc, caller)) return { status: 422, why: `missing, or role ${role.role}'s update and read filters do not hold before` }
  const after = { ...doc, ...body } as StoredDoc
  if (!writeHolds(role, grant, after, caller)) return { status: 403, why: `role ${role.role}'s update and read filters do not hold after` }
  return { status: 200, body: shownTo(role, after), why: `role ${role.role} updates it` }
}

/**
 * PUT <prefix>/{id}: the body replaces the model's fields; those the role does not see or may not set
 * are kept as stored when the body leaves them out (fields the update filter fixes are filled first).
 */
export function expectedReplace(policy: Policy, caller: GenCaller, doc: StoredDoc | undefined, body: Record<string, unknown>): Expected {
  const role = roleOf(policy, caller)
  if (role === undefined) return { status: refusalOf(caller), why: 'no role applies' }
  const grant = role.grants.update
  const fixed = fixedFields(grant, caller)
  const filled: Record<string, unknown> = { ...body }
  if (grant !== false) for (const [field, value] of fixed) if (!Object.hasOwn(filled, field)) filled[field] = value
  if (typeof filled['title'] !== 'string' || typeof filled['owner'] !== 'string') return { status: 422, why: 'the body misses a required field' }
  if (grant === false) return { status: 403, why: `role ${role.role} may not update` }
  const refused = refusedField(role, Object.keys(filled), fixed)
  if (refused !== undefined) return { status: 422, why: `role ${role.role} may not set ${refused}` }
  if (role.grants.read === false) return { status: 403, why: `role ${role.role} may not read, so may not update` }
  if (doc === undefined || !writeHolds(role, grant, doc, caller)) return { status: 422, why: `missing, or role ${role.role}'s update and read filters do not hold before` }
  const after: Record<string, unknown> = { id: doc.id, ...filled }
  for (const field of [...role.hidden, ...role.readOnly]) if (!Object.hasOwn(filled, field) && Object.hasOwn(doc, field)) after[field] = doc[field]
  if (!writeHolds(role, grant, after, caller)) return { status: 403, why: `role ${role.role}'s update and read filters do not hold after` }
  return { status: 200, body: shownTo(role, after), why: `role ${role.role} replaces it` }
}

/**
 * PATCH <prefix>/{id}/tags/{item}: an update of the parent, under the role's `update` filter. A parent
 * it may not update is told apart by what the caller may read of it: not found when it cannot read it,
 * the write's own 422 when it can.
 */
export function expectedItemUpdate(policy: Policy, caller: GenCaller, parent: StoredDoc | undefined, body: Record<string, unknown>, item: string): Expected {
  const role = roleOf(policy, caller)
  if (role === undefined) return { status: refusalOf(caller), why: 'no role applies' }
  const grant = role.grants.update
  if (grant === false) return { status: 403, why: `role ${role.role} may not update` }
  if (role.grants.read === false) return { status: 403, why: `role ${role.role} may not read the parent, so may not update it` }
  if (parent !== undefined && writeHolds(role, grant, parent, caller)) return { status: 200, body: { id: item, ...body }, why: `role ${role.role} updates the parent` }
  if (parent === undefined || !grantHolds(role.grants.read, parent, caller)) return { status: 400, why: `missing, or role ${role.role} may neither update nor read the parent` }
  return { status: 422, why: `role ${role.role} reads the parent but may not update it` }
}

export function expectedDelete(policy: Policy, caller: GenCaller, doc: StoredDoc | undefined): Expected {
  const role = roleOf(policy, caller)
  if (role === undefined) return { status: refusalOf(caller), why: 'no role applies' }
  const grant = role.grants.delete
  if (grant === false) return { status: 403, why: `role ${role.role} may not delete` }
  if (role.grants.read === false) return { status: 403, why: `role ${role.role} may not read, so may not delete` }
  if (doc === undefined || !writeHolds(role, grant, doc, caller)) return { status: 422, why: `missing, or role ${role.role}'s delete and read filters do not hold` }
  return { status: 204, why: `role ${role.role} deletes it` }
}

/** POST <prefix>: the body as sent (fields the create filter fixes are filled when left out). */
export function expectedCreate(policy: Policy, caller: GenCaller, body: Record<string, unknown>): Expected {
  const role = roleOf(policy, caller)
  if (role === undefined) return { status: refusalOf(caller), why: 'no role applies' }
  const grant = role.grants.create
  const fixed = fixedFields(grant, caller)
  const filled: Record<string, unknown> = { ...body }
  if (grant !== false) for (const [field, value] of fixed) if (!Object.hasOwn(filled, field)) filled[field] = value
  // The model requires title and owner: checked before the route's handler runs.
  if (typeof filled['title'] !== 'string' || typeof filled['owner'] !== 'string') return { status: 422, why: 'the body misses a required field' }
  if (grant === false) return { status: 403, why: `role ${role.role} may not create` }
  const refused = refusedField(role, Object.keys(filled), fixed)
  if (refused !== undefined) return { status: 422, why: `role ${role.role} may not set ${refused}` }
  if (role.grants.read === false) return { status: 403, why: `role ${role.role} may not read, so may not create` }
  if (!writeHolds(role, grant, filled, caller)) return { status: 403, why: `role ${role.role}'s create and read filters do not hold for the document` }
  return { status: 201, body: shownTo(role, filled), why: `role ${role.role} creates it` }
}

/** The policy, callers and documents as a failure message shows them. */
export function describeScenario(scenario: Scenario): string {
  return [
    `access: ${JSON.stringify(accessOption(scenario.policy))}`,
    ...scenario.callers.map((caller) => `${caller.name}: ${JSON.stringify(headersOf(caller))} -> role ${roleOf(scenario.policy, caller)?.role ?? '(none)'}`),
  ].join('\n')
}

// ---------------------------------------------------------------------------------------------------
// The Data API (docs/data-api.md): every request names its caller by a key or a token. Each caller's key
// or token carries its claims, and it sends its usual headers too (`x-test-claims`, which the routers'
// `accessClaims` reads, and its gateway's), so the routers decide its Data API requests as its routes.

export const DATA_API_BASE = '/app/data-api/endpoint/data/v1'
export const DATA_API_DATABASE = 'test'
const TOKEN_PREFIX = 'test-claims.'

/** How each caller names itself, by index: a key, or a token in either of the two headers that carry one. */
const CREDENTIALS = ['apiKey', 'bearer', 'apiKey', 'jwtTokenString', 'apiKey', 'bearer'] as const

/** The key of a caller (at least 32 characters), whether or not it uses one. */
function dataApiKeyOf(seed: number, caller: GenCaller): string {
  return `access-differential-${seed}-${caller.name}`.padEnd(40, '-')
}

/** The Data API's `keys`: one per caller, with its claims (none for a caller without credentials on the routes). */
export function dataApiKeys(scenario: Scenario): { name: string, key: string, claims: Record<string, string> }[] {
  return scenario.callers.map((caller) => ({ name: caller.name, key: dataApiKeyOf(scenario.seed, caller), claims: { ...caller.claims } }))
}

/** The Data API's `verifyToken`: a token is its claims as base64url JSON (anything else does not verify). */
export async function verifyClaimsToken(token: string): Promise<Record<string, unknown>> {
  if (!token.startsWith(TOKEN_PREFIX)) throw new Error('not a test token')
  const claims: unknown = JSON.parse(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'))
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('a token holds an object of claims')
  return claims as Record<string, unknown>
}

/** What a caller sends to the Data API: its routes' headers and its credentials. */
export function dataApiHeadersOf(scenario: Scenario, caller: GenCaller): Record<string, string> {
  const kind = CREDENTIALS[scenario.callers.indexOf(caller) % CREDENTIALS.length]!
  const token = `${TOKEN_PREFIX}${Buffer.from(JSON.stringify(caller.claims ?? {})).toString('base64url')}`
  const credentials = kind === 'apiKey' ? { apikey: dataApiKeyOf(scenario.seed, caller) } : kind === 'bearer' ? { authorization: `Bearer ${token}` } : { jwttokenstring: token }
  return { ...headersOf(caller), ...credentials }
}

/**
 * The Data API's answer where the routes refuse every document (401 or 403 of the policy): a caller that
 * names itself but no role applies to, or whose role may not read, is 403 `NoMatchingRuleFound`
 * (docs/data-api.md, Who may do what); its 401 is for credentials that name no caller.
 */
export function dataApiRefusalOf(_routeStatus: 401 | 403): { status: 403, errorCode: 'NoMatchingRuleFound' } {
  return { status: 403, errorCode: 'NoMatchingRuleFound' }
}
