import { isDeepStrictEqual } from 'node:util'
import { isRecord } from '../is-record.js'

/** One role of a router's `access` list, as an API file writes it (docs/security.md, Access policy). */
export interface AccessRoleJson {
  role: string
  when?: { claim: string, equals?: unknown } | { header: string, equals?: unknown }
  read?: boolean | Record<string, unknown>
  create?: boolean | Record<string, unknown>
  update?: boolean | Record<string, unknown>
  delete?: boolean | Record<string, unknown>
  hiddenFields?: string[]
  readOnlyFields?: string[]
}

/** What converting a rules.json gave: the roles, what it could not map (each refusing the conversion), what it left aside (no effect on access). */
export interface RulesConversion {
  readonly access: AccessRoleJson[]
  readonly problems: string[]
  readonly notes: string[]
}

/** A construct the conversion does not map: it names where, and the conversion refuses to guess. */
class Unmapped extends Error {}

const refuse = (at: string, why: string): never => {
  throw new Unmapped(`${at}: ${why}`)
}

/**
 * An App Services `rules.json` (a collection's, or `default_rule.json`) as an `access` list: each role
 * in order, `apply_when` on the caller (`%%user.id`, `%%user.data.<claim>`, a request header) as
 * `when`, `document_filters` and expression permissions as filters (`%%user.id` is `{ "$claim": "sub" }`,
 * `%%user.data.x` is `{ "$claim": "x" }`), field permissions as `hiddenFields` and `readOnlyFields`.
 * What has no exact equivalent (an `apply_when` on the document, custom user data, `%%values`, nested
 * field rules, top-level `filters`, a role that hides every field but some) is a problem naming its place:
 * the caller gets no `access` list then, as a list missing a role would let its callers fall to the
 * next one. `search` has no effect here and is only noted.
 */
export function rulesToAccess(rules: unknown): RulesConversion {
  const problems: string[] = []
  const notes: string[] = []
  if (!isRecord(rules) || !Array.isArray(rules['roles'])) return { access: [], problems: ['rules.json: expected an object with a "roles" array (a collection\'s rules.json, or default_rule.json)'], notes }
  if (Array.isArray(rules['filters']) && rules['filters'].length > 0) {
    problems.push('filters: the query filters of rules.json have no equivalent (an access role filters by its read, update and delete filters): fold each into the roles\' filters by hand')
  }
  const access: AccessRoleJson[] = []
  rules['roles'].forEach((raw, index) => {
    const at = `roles[${index}]${isRecord(raw) && typeof raw['name'] === 'string' ? ` (${raw['name']})` : ''}`
    try {
      access.push(roleOf(raw, at, notes))
    } catch (error) {
      if (!(error instanceof Unmapped)) throw error
      problems.push(error.message)
    }
  })
  return { access, problems, notes }
}

const KNOWN_ROLE_KEYS = new Set(['name', 'apply_when', 'document_filters', 'read', 'write', 'insert', 'delete', 'search', 'fields', 'additional_fields'])

function roleOf(raw: unknown, at: string, notes: string[]): AccessRoleJson {
  if (!isRecord(raw) || typeof raw['name'] !== 'string' || raw['name'] === '') return refuse(at, 'a role needs a name')
  for (const key of Object.keys(raw)) if (!KNOWN_ROLE_KEYS.has(key)) refuse(`${at}.${key}`, 'not a key of an App Services role')
  if (raw['search'] !== undefined) notes.push(`${at}.search: Atlas Search permissions have no effect here (left out)`)
  const when = whenOf(raw['apply_when'], `${at}.apply_when`)
  const filters = documentFilters(raw['document_filters'], `${at}.document_filters`)
  // Document-level permissions win over field-level ones; a write permission implies reading.
  const writePerm = expression(raw['write'], `${at}.write`, false)
  const readPerm = either(expression(raw['read'], `${at}.read`, false), writePerm)
  const fields = fieldRules(raw, at, { reads: readPerm !== false, writes: writePerm !== false })
  const writesAll = writePerm !== false || fields.writesAll
  const role: AccessRoleJson = { role: raw['name'], ...(when === undefined ? {} : { when }) }
  role.read = readPerm !== false || fields.readable ? both(filters.read, readPerm === false ? true : readPerm) : false
  role.update = writePerm !== false || fields.writable ? both(filters.write, writePerm === false ? true : writePerm) : false
  // Inserts and deletes need write permission on every field of the document (App Services' rule).
  role.create = writesAll ? both(role.update, permission(raw['insert'], `${at}.insert`)) : false
  role.delete = writesAll ? both(role.update, permission(raw['delete'], `${at}.delete`)) : false
  if (readPerm === false && fields.hidden.length > 0) role.hiddenFields = fields.hidden
  if (writePerm === false && role.update !== false && fields.readOnly.length > 0) role.readOnlyFields = fields.readOnly
  return role
}

/** `apply_when` on the caller only: `{}` (always), one condition on `%%user.id`, `%%user.data.<claim>` or `%%request.requestHeaders.<name>`. */
function whenOf(raw: unknown, at: string): AccessRoleJson['when'] {
  if (raw === undefined || (isRecord(raw) && Object.keys(raw).length === 0)) return undefined
  if (!isRecord(raw)) return refuse(at, 'expected an expression object')
  const entries = Object.entries(raw)
  if (entries.length > 1) return refuse(at, 'several conditions: a role\'s `when` holds one (a claim or a header); split the role, or move the others into its filters')
  const [key, value] = entries[0]!
  const source = callerSource(key)
  if (source === undefined && key.startsWith('%%') && !key.startsWith('%%root.')) {
    return refuse(at, `"${key}" has no equivalent: a role's when reads a claim (%%user.id, %%user.data.<claim>) or a header (%%request.requestHeaders.<name>)`)
  }
  if (source === undefined) {
    return refuse(at, `"${key}" reads the document (roles here are chosen per request, not per document): put the condition in document_filters, where it becomes the role's filters`)
  }
  if (isRecord(value)) {
    const keys = Object.keys(value)
    if (keys.length === 1 && (keys[0] === '$exists' || keys[0] === '%exists') && value[keys[0]!] === true) return { ...source }
    if (keys.length === 1 && (keys[0] === '$in' || keys[0] === '%in') && Array.isArray(value[keys[0]!]) && (value[keys[0]!] as unknown[]).every(isScalar)) return { ...source, equals: value[keys[0]!] }
    return refuse(at, `"${key}": only a value, a list of values ($in) or $exists: true can be matched`)
  }
  if (!isScalar(value)) return refuse(at, `"${key}": expected a value`)
  return { ...source, equals: value }
}

/** What a key of an expression names of the caller: a claim (`%%user.id` is `sub`) or a request header; undefined for anything else. */
function callerSource(key: string): { claim: string } | { header: string } | undefined {
  if (key === '%%user.id') return { claim: 'sub' }
  const claim = /^%%user\.data\.([^.]+)$/.exec(key)?.[1]
  if (claim !== undefined) return { claim }
  const header = /^%%request\.requestHeaders\.([^.]+)$/.exec(key)?.[1]
  return header === undefined ? undefined : { header: header.toLowerCase() }
}

function documentFilters(raw: unknown, at: string): { read: boolean | Record<string, unknown>, write: boolean | Record<string, unknown> } {
  if (raw === undefined) return { read: true, write: true }
  if (!isRecord(raw)) return refuse(at, 'expected { read, write }')
  const write = raw['write'] === undefined ? true : expression(raw['write'], `${at}.write`, true)
  // A document the write filter selects is readable too (App Services: read is denied only when both are false).
  const read = raw['read'] === undefined ? true : raw['write'] === undefined ? expression(raw['read'], `${at}.read`, true) : either(expression(raw['read'], `${at}.read`, true), write)
  return { read, write }
}

/** `insert` and `delete`: true (the default), false, or an expression on the document. */
function permission(raw: unknown, at: string): boolean | Record<string, unknown> {
  return raw === undefined ? true : expression(raw, at, true)
}

/** A permission expression as a filter: a boolean, or a document query whose values may name the caller. `fallback` when absent. */
function expression(raw: unknown, at: string, fallback: boolean): boolean | Record<string, unknown> {
  if (raw === undefined) return fallback
  if (typeof raw === 'boolean') return raw
  if (!isRecord(raw)) return refuse(at, 'expected true, false or an expression')
  if (Object.keys(raw).length === 0) return true
  return filterOf(raw, at) as Record<string, unknown>
}

/** An expression over the document as the closed filter grammar writes it: `%%root.x` is `x`, `%%user.id` is `{ "$claim": "sub" }`, `%op` is `$op`. */
function filterOf(value: unknown, at: string): unknown {
  if (typeof value === 'string' && value.startsWith('%%')) {
    const source = callerSource(value)
    if (source === undefined || !('claim' in source)) return refuse(at, `${value} has no equivalent (a filter names the caller's claims: %%user.id, %%user.data.<claim>)`)
    return { $claim: source.claim }
  }
  if (Array.isArray(value)) return value.map((item, index) => filterOf(item, `${at}[${index}]`))
  if (!isRecord(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, sub] of Object.entries(value)) {
    const name = key.startsWith('%%root.') ? key.slice('%%root.'.length) : key.startsWith('%') && !key.startsWith('%%') ? `$${key.slice(1)}` : key
    if (name.startsWith('%%')) refuse(`${at}.${key}`, `${key} is not a field of the document: a condition on the caller belongs in apply_when`)
    if (name === '$function' || name === '$where' || name === '$expr') refuse(`${at}.${key}`, `${key} runs code or expressions, which no filter here does`)
    out[name] = filterOf(sub, `${at}.${key}`)
  }
  return out
}

/**
 * Field rules as the fields a role does not see and those it may not set (top-level only). Where the
 * document-level permission already reads (`reads`) or writes (`writes`) every field, the field rules
 * of that kind say nothing.
 */
function fieldRules(raw: Record<string, unknown>, at: string, documentLevel: { reads: boolean, writes: boolean }) {
  const fields = raw['fields'] ?? {}
  const additional = raw['additional_fields'] ?? {}
  if (!isRecord(fields) || !isRecord(additional)) return refuse(at, 'fields and additional_fields must be objects')
  const flag = (value: unknown, place: string): boolean => (value === undefined || typeof value === 'boolean' ? value === true : refuse(place, 'a field permission here is true or false (an expression per field has no equivalent)'))
  const moreWrite = flag(additional['write'], `${at}.additional_fields.write`)
  const moreRead = moreWrite || flag(additional['read'], `${at}.additional_fields.read`)
  const hidden: string[] = []
  const readOnly: string[] = []
  let readable = moreRead
  let writable = moreWrite
  for (const [name, rule] of Object.entries(fields)) {
    if (!isRecord(rule)) return refuse(`${at}.fields.${name}`, 'expected { read, write }')
    if (rule['fields'] !== undefined) refuse(`${at}.fields.${name}.fields`, 'rules of embedded fields have no equivalent (hiddenFields and readOnlyFields name top-level fields)')
    const writes = flag(rule['write'], `${at}.fields.${name}.write`)
    const reads = writes || flag(rule['read'], `${at}.fields.${name}.read`)
    if (reads) readable = true
    else hidden.push(name)
    if (writes) writable = true
    else readOnly.push(name)
  }
  if (!documentLevel.reads && !moreRead && readable) refuse(`${at}.additional_fields`, "the role sees only the fields listed: hiddenFields names the fields a role does not see, so list the model's other fields there by hand")
  if (!documentLevel.writes && !moreWrite && writable) refuse(`${at}.additional_fields`, "the role may set only the fields listed: readOnlyFields names the fields a role may not set, so list the model's other fields there by hand")
  return { hidden, readOnly, readable, writable, writesAll: moreWrite && readOnly.length === 0 }
}

const isScalar = (value: unknown) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'

/** Both conditions (AND), with `true` and `false` simplified. */
function both(a: boolean | Record<string, unknown>, b: boolean | Record<string, unknown>): boolean | Record<string, unknown> {
  if (a === false || b === false) return false
  if (a === true) return b
  if (b === true) return a
  return { $and: [a, b] }
}

/** Either condition (OR), with `true` and `false` simplified, and a condition one `$or` already holds not repeated. */
function either(a: boolean | Record<string, unknown>, b: boolean | Record<string, unknown>): boolean | Record<string, unknown> {
  if (a === true || b === true) return true
  if (a === false) return b
  if (b === false) return a
  const alternatives = [a, b].flatMap((side) => (Object.keys(side).length === 1 && Array.isArray(side['$or']) ? (side['$or'] as unknown[]) : [side]))
  const distinct = alternatives.filter((item, index) => alternatives.findIndex((other) => isDeepStrictEqual(other, item)) === index)
  return distinct.length === 1 ? (distinct[0] as Record<string, unknown>) : { $or: distinct }
}
