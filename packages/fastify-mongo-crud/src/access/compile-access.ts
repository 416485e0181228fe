import type { FastifyRequest } from 'fastify'
import { accessRefused, HTTPException, SetupError } from '../errors.js'
import { isRecord } from '../is-record.js'
import { type Filter, MATCH_NOTHING } from '../query/filter.js'
import { type FilterContext, parseFilterObject } from '../query/parse-filter.js'
import { ACCESS_OPS, type AccessClaims, type AccessGrant, type AccessOp, type AccessRole, type AccessValue } from './access-options.js'

/**
 * What the policy decided for one request: the role that applies, the filter each operation runs under,
 * and the fields the role does not see or may not set. Every channel asks this one decision
 * (core/router-context.ts `access`), so none can decide differently from another.
 */
export interface AccessDecision {
  /** The role's name; undefined on a router without `access`. */
  readonly role: string | undefined
  /** The filter `op` runs under (undefined: every document); throws 403 when the role may not `op` at all. */
  grant(op: AccessOp): Filter | undefined
  /** Whether the role may `op` some document. */
  allows(op: AccessOp): boolean
  /** Top-level fields the role does not see: answers, `fields=`, events and patches treat them as unknown. */
  readonly hidden: ReadonlySet<string>
  /** Top-level fields the role may not set (422 naming the field). */
  readonly readOnly: ReadonlySet<string>
}

/**
 * The filter a write of `op` reaches documents by: the role's `op` filter AND its `read` filter, so a role
 * writes only what it may read, and a write's answer (which shows the document) never shows one GET would
 * not: as PostgreSQL's row security, where an UPDATE or DELETE sees rows through the SELECT policy too,
 * and a row an INSERT returns must pass it. A role that may not read may not write.
 */
export function reachable(decision: AccessDecision, op: AccessOp): Filter | undefined {
  const own = decision.grant(op)
  if (op === 'read' || decision.role === undefined) return own
  if (!decision.allows('read')) throw accessRefused(403, `Refused: the role '${decision.role}' may not ${op} documents here`)
  const readable = decision.grant('read')
  return own === undefined ? readable : readable === undefined ? own : { kind: 'and', items: [own, readable] }
}

/** A role as OpenAPI documents it: what it may do with each operation. */
export interface RoleSummary {
  readonly role: string
  readonly when: string
  readonly grants: Readonly<Record<AccessOp, 'all' | 'some' | 'none'>>
  readonly hiddenFields: readonly string[]
  readonly readOnlyFields: readonly string[]
}

/** The compiled `access` option of a router. */
export interface AccessPolicy {
  readonly roles: readonly RoleSummary[]
  /** Every field some role does not see: never filterable, sortable or grouped (one rule for every caller). */
  readonly hiddenByAnyRole: ReadonlySet<string>
  decide(request: FastifyRequest): Promise<AccessDecision>
}

/** The decision on a router without `access`: every operation on every document, nothing more hidden. */
export const OPEN_ACCESS: AccessDecision = {
  role: undefined,
  grant: () => undefined,
  allows: () => true,
  hidden: new Set(),
  readOnly: new Set(),
}

type CompiledGrant =
  | { readonly kind: 'all' | 'none' }
  | { readonly kind: 'filter', readonly json: Record<string, unknown>, readonly placeholders: boolean, readonly parsed: Filter | undefined }
  | { readonly kind: 'function', readonly fn: (request: FastifyRequest) => unknown }

interface CompiledRole {
  readonly name: string
  readonly when: ((request: FastifyRequest, claims: () => Promise<Record<string, unknown> | undefined>) => Promise<boolean>) | undefined
  readonly grants: Readonly<Record<AccessOp, CompiledGrant>>
  readonly hidden: ReadonlySet<string>
  readonly readOnly: ReadonlySet<string>
}

/** What compiling needs of the router: its model's top-level fields, and how its policy filters are parsed. */
export interface AccessModel {
  readonly collectionName: string
  /** Top-level fields of the stored model. */
  readonly fields: ReadonlySet<string>
  /** The context policy filters are parsed in: the fields clients may name, less every role's hidden ones. */
  filterContext(hiddenByAnyRole: ReadonlySet<string>): FilterContext
}

const fail = (message: string) => new SetupError('FMC_ERR_OPTIONS_INVALID', `CRUDRouter: ${message}`)

/** A `{ "$claim": name }` or `{ "$header": name }` placeholder's source and name, or undefined. */
function placeholderOf(value: unknown): { source: '$claim' | '$header', name: string } | undefined {
  if (!isRecord(value)) return undefined
  const keys = Object.keys(value)
  if (keys.length !== 1 || (keys[0] !== '$claim' && keys[0] !== '$header')) return undefined
  const name = value[keys[0]]
  return typeof name === 'string' && name !== '' ? { source: keys[0], name } : undefined
}

/**
 * Validates `access` once, at registration, and compiles it: role names unique, every field it names a
 * field of the model, every filter in the closed grammar over fields every role sees (placeholders stand
 * for values of the field's type). Throws a SetupError naming the place.
 */
export function compileAccess(raw: unknown, claimsOf: AccessClaims | undefined, model: AccessModel): AccessPolicy | undefined {
  if (raw === undefined) return undefined
  if (!Array.isArray(raw) || raw.length === 0) throw fail("'access' must be a non-empty array of roles")
  const names = new Set<string>()
  const hiddenByAnyRole = new Set<string>()
  const roles = raw.map((entry, index) => {
    const at = `access[${index}]`
    if (!isRecord(entry)) throw fail(`'${at}' must be an object with a role name`)
    const known = new Set(['role', 'when', 'read', 'create', 'update', 'delete', 'hiddenFields', 'readOnlyFields'])
    for (const key of Object.keys(entry)) if (!known.has(key)) throw fail(`'${at}': unknown key '${key}' (a role takes ${[...known].join(', ')})`)
    const name = entry['role']
    if (typeof name !== 'string' || name === '') throw fail(`'${at}'.role must be a non-empty string`)
    if (names.has(name)) throw fail(`'${at}'.role: '${name}' names two roles`)
    names.add(name)
    const fieldList = (key: 'hiddenFields' | 'readOnlyFields') => {
      const list = entry[key] ?? []
      if (!Array.isArray(list) || !list.every((field) => typeof field === 'string')) throw fail(`'${at}'.${key} must be an array of field names`)
      for (const field of list as string[]) {
        if (field === '_id' || field === 'id') throw fail(`'${at}'.${key}: the id is always shown and never set`)
        if (!model.fields.has(field)) throw fail(`'${at}'.${key}: '${field}' is not a top-level field of the model of '${model.collectionName}'`)
      }
      return new Set(list as string[])
    }
    const hidden = fieldList('hiddenFields')
    for (const field of hidden) hiddenByAnyRole.add(field)
    return { name, at, entry: entry as unknown as AccessRole, hidden, readOnly: fieldList('readOnlyFields') }
  })
  const filterContext = model.filterContext(hiddenByAnyRole)
  const compiled: CompiledRole[] = roles.map(({ name, at, entry, hidden, readOnly }) => ({
    name,
    when: compileWhen(entry.when, `${at}.when`),
    grants: Object.fromEntries(ACCESS_OPS.map((op) => [op, compileGrant(entry[op], `${at}.${op}`, filterContext)])) as Record<AccessOp, CompiledGrant>,
    hidden,
    readOnly,
  }))
  const claims = claimsOf ?? defaultClaims
  return {
    roles: compiled.map(summary),
    hiddenByAnyRole,
    decide: decider(compiled, claims, filterContext, model.collectionName),
  }
}

/** Without `accessClaims`: `request.user`, where @fastify/jwt and most auth plugins put the verified claims. */
const defaultClaims: AccessClaims = (request) => {
  const user = (request as { user?: unknown }).user
  return isRecord(user) ? user : undefined
}

function compileWhen(when: AccessRole['when'], at: string): CompiledRole['when'] {
  if (when === undefined) return undefined
  if (typeof when === 'function') return async (request) => (await when(request)) === true
  if (!isRecord(when)) throw fail(`'${at}' must be { claim, equals? }, { header, equals? } or a function of the request`)
  const keys = Object.keys(when)
  const source = 'claim' in when ? 'claim' : 'header' in when ? 'header' : undefined
  if (source === undefined || keys.some((key) => key !== source && key !== 'equals')) throw fail(`'${at}' must be { claim, equals? } or { header, equals? }`)
  const name = (when as Record<string, unknown>)[source]
  if (typeof name !== 'string' || name === '') throw fail(`'${at}'.${source} must be a non-empty string`)
  const equals = (when as { equals?: unknown }).equals
  const accepted = equals === undefined ? undefined : (Array.isArray(equals) ? equals : [equals])
  if (accepted !== undefined && (accepted.length === 0 || !accepted.every(isAccessValue))) throw fail(`'${at}'.equals must be a string, number or boolean, or a non-empty list of them`)
  const texts = accepted === undefined ? undefined : new Set(accepted.map(String))
  const holds = (value: unknown) => {
    const values = valueTexts(value)
    return texts === undefined ? values.some((text) => text !== '') : values.some((text) => texts.has(text))
  }
  if (source === 'header') {
    const header = name.toLowerCase()
    return async (request) => holds(request.headers[header])
  }
  return async (_request, claims) => holds((await claims())?.[name])
}

const isAccessValue = (value: unknown): value is AccessValue => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'

/** A claim's or header's values as text: a scalar, each scalar of a list. */
function valueTexts(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).flatMap((item) => (isAccessValue(item) ? [String(item)] : []))
}

function compileGrant(grant: AccessGrant | undefined, at: string, context: FilterContext): CompiledGrant {
  if (grant === undefined || grant === false) return { kind: 'none' }
  if (grant === true) return { kind: 'all' }
  if (typeof grant === 'function') return { kind: 'function', fn: grant }
  if (!isRecord(grant)) throw fail(`'${at}' must be true, false, a filter or a function of the request`)
  const placeholders = hasPlaceholder(grant)
  try {
    // Placeholders stand for a value of the field's type: null passes every type check of the grammar.
    const parsed = parseFilterObject(substitute(grant, () => null), context)
    return { kind: 'filter', json: grant, placeholders, parsed }
  } catch (error) {
    if (error instanceof HTTPException) throw fail(`'${at}': ${String(error.detail).replace(/^filters: /, '')}`)
    throw error
  }
}

function hasPlaceholder(value: unknown): boolean {
  if (placeholderOf(value) !== undefined) return true
  if (Array.isArray(value)) return value.some(hasPlaceholder)
  return isRecord(value) && Object.values(value).some(hasPlaceholder)
}

/** The filter with each placeholder replaced by what `read` reads for it. */
function substitute(value: unknown, read: (source: '$claim' | '$header', name: string) => unknown): unknown {
  const placeholder = placeholderOf(value)
  if (placeholder !== undefined) return read(placeholder.source, placeholder.name)
  if (Array.isArray(value)) return value.map((item) => substitute(item, read))
  if (!isRecord(value)) return value
  return Object.fromEntries(Object.entries(value).map(([key, sub]) => [key, substitute(sub, read)]))
}

function summary(role: CompiledRole): RoleSummary {
  const grant = (compiled: CompiledGrant) => (compiled.kind === 'all' ? 'all' : compiled.kind === 'none' ? 'none' : 'some')
  return {
    role: role.name,
    when: role.when === undefined ? 'always' : 'when its condition holds',
    grants: Object.fromEntries(ACCESS_OPS.map((op) => [op, grant(role.grants[op])])) as RoleSummary['grants'],
    hiddenFields: [...role.hidden],
    readOnlyFields: [...role.readOnly],
  }
}

/** The 403 of a caller with credentials that no role applies to. */
export const NO_ROLE_APPLIES = 'Refused: no role of this API applies to the caller'

/**
 * The per-request decision: the first role whose `when` holds, its grants made filters. A grant that
 * reads a claim or header the request lacks, or whose value the field's type refuses, matches nothing
 * (logged once): request data never widens a policy, nor answers 500.
 */
function decider(roles: readonly CompiledRole[], claimsOf: AccessClaims, context: FilterContext, collection: string) {
  const logged = new Set<string>()
  return async (request: FastifyRequest): Promise<AccessDecision> => {
    let claims: Promise<Record<string, unknown> | undefined> | undefined
    const readClaims = () => {
      claims ??= Promise.resolve(claimsOf(request))
      return claims
    }
    let role: CompiledRole | undefined
    for (const candidate of roles) {
      if (candidate.when === undefined || (await candidate.when(request, readClaims))) {
        role = candidate
        break
      }
    }
    if (role === undefined) {
      const anonymous = (await readClaims()) === undefined && request.headers.authorization === undefined
      throw anonymous
        ? accessRefused(401, 'Authentication required: no role of this API applies to a caller without credentials')
        : accessRefused(403, NO_ROLE_APPLIES)
    }
    const matchNothing = (problem: string) => {
      if (!logged.has(problem)) {
        logged.add(problem)
        request.log.error({ collection, role: role.name }, `${problem}: the role's filter matches nothing (logged once)`)
      }
      return MATCH_NOTHING
    }
    const filters = new Map<AccessOp, Filter | undefined | false>()
    for (const op of ACCESS_OPS) filters.set(op, await grantFilter(role.grants[op], request, readClaims, context, matchNothing, `${role.name}.${op}`))
    const chosen = role
    return {
      role: chosen.name,
      grant(op) {
        const filter = filters.get(op)
        if (filter === false) throw accessRefused(403, `Refused: the role '${chosen.name}' may not ${op === 'read' ? 'read' : op} documents here`)
        return filter
      },
      allows: (op) => filters.get(op) !== false,
      hidden: chosen.hidden,
      readOnly: chosen.readOnly,
    }
  }
}

async function grantFilter(
  grant: CompiledGrant,
  request: FastifyRequest,
  claims: () => Promise<Record<string, unknown> | undefined>,
  context: FilterContext,
  matchNothing: (problem: string) => Filter,
  at: string
): Promise<Filter | undefined | false> {
  switch (grant.kind) {
    case 'all':
      return undefined
    case 'none':
      return false
    case 'filter': {
      if (!grant.placeholders) return grant.parsed
      const values = await claims()
      let missing: string | undefined
      const json = substitute(grant.json, (source, name) => {
        const value = source === '$claim' ? values?.[name] : request.headers[name.toLowerCase()]
        if (value === undefined || value === null || value === '') missing ??= `${source === '$claim' ? 'claim' : 'header'} '${name}'`
        return value ?? null
      })
      if (missing !== undefined) return matchNothing(`access ${at}: the request has no ${missing}`)
      return parsed(json, context, matchNothing, at)
    }
    case 'function': {
      const value = await grant.fn(request)
      if (value === true) return undefined
      if (value === false) return false
      if (!isRecord(value)) return matchNothing(`access ${at}: the function returned neither true, false nor a filter`)
      return parsed(value, context, matchNothing, at)
    }
  }
}

function parsed(json: unknown, context: FilterContext, matchNothing: (problem: string) => Filter, at: string): Filter | undefined {
  try {
    return parseFilterObject(json, context)
  } catch (error) {
    return matchNothing(`access ${at}: a filter the router cannot use (${(error as Error).message})`)
  }
}
