import { compareBson, compareStrings } from '../bson/bson-order.js'
import type { Document } from '../document.js'
import { badValueError, failedToParseError, incompatibleCollationVersionError, noSuchKeyError, typeMismatchError } from '../errors.js'
import { formatValue } from '../format-value.js'

/**
 * A collation the engine compares strings with: one Node `Intl.Collator` (ICU, as the server's),
 * configured from a MongoDB collation document. `key` names the normalized options, so that one
 * collation is built once and the contexts and comparators made from it are shared.
 */
export interface Collation {
  readonly key: string
  /** The order of two strings under the collation (0: equal under it). */
  readonly compareStrings: (a: string, b: string) => number
  /** MongoDB's BSON order with strings (values, not field names) in the collation's order. */
  readonly compareValues: (a: unknown, b: unknown) => number
}

/** MongoDB's ICU version, the only one a collation document's `version` may name. */
const MONGODB_ICU_VERSION = '57.1'

const BOOLEAN_FIELDS = ['caseLevel', 'numericOrdering', 'normalization', 'backwards'] as const
const STRING_FIELDS = ['caseFirst', 'alternate', 'maxVariable', 'version'] as const
const KNOWN_FIELDS = new Set<string>(['locale', 'strength', ...BOOLEAN_FIELDS, ...STRING_FIELDS])

/**
 * The locales the server accepts (its manual's "Supported Languages and Locales"), spelled as the
 * server wants them. The server refuses any other spelling ("en-US", "en_us") as invalid.
 */
const LOCALES = new Set(
  (
    'af sq am ar ar@collation=compat hy as az az@collation=search be bn bn@collation=traditional bs bs_Cyrl bg my ' +
    'ca ca@collation=search chr zh zh@collation=big5han zh@collation=gb2312han zh@collation=unihan zh@collation=zhuyin ' +
    'zh@collation=pinyin zh@collation=stroke zh_Hant zh_Hant@collation=big5han zh_Hant@collation=gb2312han ' +
    'zh_Hant@collation=unihan zh_Hant@collation=zhuyin zh_Hant@collation=pinyin zh_Hant@collation=stroke hr ' +
    'hr@collation=search cs cs@collation=search da da@collation=search nl dz en en_US en_US_POSIX eo et ee fo fil ' +
    'fi_FI fi_FI@collation=search fi_FI@collation=traditional fr fr_CA gl gl@collation=search ka de de@collation=phonebook ' +
    'de@collation=search de_AT de_AT@collation=phonebook el gu ha haw he he@collation=search hi hu is is@collation=search ' +
    'ig smn smn@collation=search id ga it ja ja@collation=unihan kl kl@collation=search kn kn@collation=traditional kk km ' +
    'kok ko ko@collation=search ko@collation=searchjl ko@collation=unihan ky lo lv ln ln@collation=phonetic lt dsb lb mk ' +
    'ms ml mt mr mn ne se se@collation=search nb nb@collation=search nn nn@collation=search or om ps fa fa_AF pl pt pa ro ' +
    'ru sr sr_Latn sr_Latn@collation=search si si@collation=dictionary sk sk@collation=search sl es es@collation=search ' +
    'es@collation=traditional sw sv sv@collation=search ta te th bo to tr tr@collation=search uk hsb ur ug vi ' +
    'vi@collation=traditional wae cy yi yi@collation=search yo zu'
  ).split(' ')
)

/** ICU collation keywords as BCP 47 `-u-co-` values (`Intl.Collator` takes the latter). */
const COLLATION_TYPES: Record<string, string> = {
  big5han: 'big5han',
  compat: 'compat',
  dictionary: 'dict',
  gb2312han: 'gb2312',
  phonebook: 'phonebk',
  phonetic: 'phonetic',
  pinyin: 'pinyin',
  stroke: 'stroke',
  traditional: 'trad',
  unihan: 'unihan',
  zhuyin: 'zhuyin',
}

interface Spec {
  locale: string
  strength?: number
  caseLevel?: boolean
  caseFirst?: string
  numericOrdering?: boolean
  alternate?: string
  maxVariable?: string
  normalization?: boolean
  backwards?: boolean
}

const cache = new Map<string, Collation>()
const CACHE_LIMIT = 64

/**
 * The collation of an operation's `collation` option, validated with the server's codes and
 * messages; undefined for none (absent) and for `{ locale: 'simple' }`, the binary comparison every
 * operation uses by default. What Node's `Intl.Collator` cannot express faithfully is refused with
 * a BadValue naming the field and value, rather than answered differently from the server.
 */
export function toCollation(value: unknown): Collation | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value) || (value as { _bsontype?: unknown })._bsontype !== undefined) {
    throw typeMismatchError(`BSON field 'collation' is the wrong type '${typeName(value)}', expected type 'object'`)
  }
  const spec = parseSpec(value as Document)
  if (spec === undefined) return undefined
  const key = JSON.stringify(spec)
  let collation = cache.get(key)
  if (collation === undefined) {
    collation = buildCollation(spec, key)
    if (cache.size >= CACHE_LIMIT) cache.clear()
    cache.set(key, collation)
  }
  return collation
}

/** A collation document parsed field by field as MongoDB parses it: its checks, in its order, with its error messages. */
function parseSpec(doc: Document): Spec | undefined {
  if (!Object.hasOwn(doc, 'locale')) throw noSuchKeyError('Missing expected field "locale"')
  const locale = doc['locale']
  if (typeof locale !== 'string') throw typeMismatchError(`"locale" had the wrong type. Expected string, found ${typeName(locale)}`)
  if (locale === 'simple') {
    if (Object.keys(doc).length > 1) throw failedToParseError(`If locale=simple, no other fields should be present in: ${formatValue(doc)}`)
    return undefined
  }
  if (locale.includes('\0')) throw badValueError(`Field 'locale' cannot contain null byte. Collation spec: ${formatValue(doc)}`)
  if (locale === '') throw badValueError(`Field 'locale' cannot be the empty string in: ${formatValue(doc)}`)
  if (!LOCALES.has(locale)) throw badValueError(`Field 'locale' is invalid in: ${formatValue(doc)}`)
  const spec: Spec = { locale }
  for (const field of BOOLEAN_FIELDS) {
    const given = doc[field]
    if (given === undefined) continue
    if (typeof given !== 'boolean') throw typeMismatchError(`"${field}" had the wrong type. Expected bool, found ${typeName(given)}`)
    spec[field] = given
  }
  for (const field of STRING_FIELDS) {
    const given = doc[field]
    if (given !== undefined && typeof given !== 'string') throw typeMismatchError(`"${field}" had the wrong type. Expected string, found ${typeName(given)}`)
  }
  if (doc['caseFirst'] !== undefined) spec.caseFirst = oneOf(doc, 'caseFirst', ['upper', 'lower', 'off'])
  if (doc['strength'] !== undefined) spec.strength = strengthOf(doc['strength'])
  if (doc['alternate'] !== undefined) spec.alternate = oneOf(doc, 'alternate', ['non-ignorable', 'shifted'])
  if (doc['maxVariable'] !== undefined) spec.maxVariable = oneOf(doc, 'maxVariable', ['punct', 'space'])
  const version = doc['version']
  if (version !== undefined && version !== MONGODB_ICU_VERSION) {
    throw incompatibleCollationVersionError(`Requested collation version ${String(version)} but the only available collator version was ${MONGODB_ICU_VERSION}. Requested collation spec: ${formatValue(doc)}`)
  }
  if (Object.keys(doc).some((field) => !KNOWN_FIELDS.has(field))) {
    throw failedToParseError(`Collation spec contains unknown field. Collation spec: ${formatValue(doc)}`)
  }
  const strength = spec.strength ?? 3
  if (spec.backwards === true && strength === 1) throw badValueError(`'backwards' is invalid with 'strength' of 1 in: ${formatValue(doc)}`)
  if (spec.caseFirst !== undefined && spec.caseFirst !== 'off' && spec.caseLevel !== true && strength < 3) {
    throw badValueError(`'caseFirst' is invalid unless 'caseLevel' is on or 'strength' is greater than 2 in: ${formatValue(doc)}`)
  }
  return spec
}

function oneOf(doc: Document, field: string, allowed: string[]): string {
  const value = doc[field] as string
  if (allowed.includes(value)) return value
  const choices = allowed.length === 2 ? `'${allowed[0]}' or '${allowed[1]}'` : `'${allowed.slice(0, -1).join("', '")}', or '${allowed.at(-1)}'`
  throw failedToParseError(`Field '${field}' must be ${choices}. Got: ${value}`)
}

/** An integer 1 to 5 (int, long or an integral double, as the server's bsonExtractIntegerField). */
function strengthOf(value: unknown): number {
  const bsonType = (value as { _bsontype?: unknown } | null)?._bsontype
  const number = typeof value === 'number' ? value : bsonType === 'Long' || bsonType === 'Int32' || bsonType === 'Double' ? Number(value) : undefined
  if (number === undefined) throw typeMismatchError(`Expected field "strength" to have numeric type, but found ${typeName(value)}`)
  if (!Number.isInteger(number)) throw badValueError(`Expected field "strength" to have a value exactly representable as a 64-bit integer, but found strength: ${number}`)
  if (number < 1 || number > 5) throw failedToParseError(`Field 'strength' must be an integer 1 through 5. Got: ${number}`)
  return number
}

/** The BCP 47 tag `Intl.Collator` takes for a server locale ("de@collation=phonebook": "de-u-co-phonebk"). */
function languageTagOf(locale: string): string {
  const [name = '', keyword] = locale.split('@')
  const base = name === 'en_US_POSIX' ? 'en-US-u-va-posix' : name.replaceAll('_', '-')
  if (keyword === undefined) return base
  const type = COLLATION_TYPES[keyword.slice('collation='.length)]
  // Search collations exist in ICU for string search only: `Intl.Collator` does not sort with them.
  if (type === undefined) throw unsupported('locale', locale)
  return base.includes('-u-') ? `${base}-co-${type}` : `${base}-u-co-${type}`
}

function unsupported(field: string, value: unknown, why = ''): Error {
  return badValueError(`collation ${field} ${formatValue(value)}${why} is not supported by the embedded engine (Node's Intl.Collator cannot express it)`)
}

function buildCollation(spec: Spec, key: string): Collation {
  const tag = languageTagOf(spec.locale)
  if (Intl.Collator.supportedLocalesOf(tag).length === 0) throw unsupported('locale', spec.locale, ' (no ICU data in this Node.js)')
  const strength = spec.strength ?? 3
  const options: Intl.CollatorOptions = { usage: 'sort', sensitivity: strength === 1 ? 'base' : strength === 2 ? 'accent' : 'variant' }
  if (spec.caseLevel === true) {
    // ICU's case level between the primary and secondary levels: Intl's "case" sensitivity is
    // exactly strength 1 with it; with more levels Intl has no equivalent.
    if (strength !== 1) throw unsupported('caseLevel', true, ` with strength ${strength}`)
    options.sensitivity = 'case'
  }
  if (spec.caseFirst !== undefined) options.caseFirst = spec.caseFirst === 'off' ? 'false' : (spec.caseFirst as 'upper' | 'lower')
  if (spec.numericOrdering !== undefined) options.numeric = spec.numericOrdering
  if (spec.alternate !== undefined) options.ignorePunctuation = spec.alternate === 'shifted'
  const collator = new Intl.Collator(tag, options)
  const resolved = collator.resolvedOptions()
  const wantedType = tag.match(/-co-([a-z0-9]+)/)?.[1]
  if (wantedType !== undefined && resolved.collation !== wantedType) throw unsupported('locale', spec.locale, ' (no such collation in this Node.js)')
  // Probes of what Intl applied, where it may keep the locale's own default instead.
  const shifted = collator.compare('a-b', 'ab') === 0 && collator.compare('a b', 'ab') === 0
  if (spec.alternate !== undefined && shifted !== (spec.alternate === 'shifted')) throw unsupported('alternate', spec.alternate, ` for locale ${formatValue(spec.locale)}`)
  if (spec.maxVariable === 'space' && shifted) throw unsupported('maxVariable', 'space', " with alternate 'shifted'")
  // ICU's quaternary level only tells variable characters apart when they are shifted (and kana in
  // Japanese); otherwise strength 4 orders as 3. Identical (5) then compares NFD code points.
  if (strength >= 4 && (shifted || spec.locale.startsWith('ja'))) throw unsupported('strength', strength, ` for locale ${formatValue(spec.locale)}${shifted ? " with alternate 'shifted'" : ''}`)
  if (strength >= 2) {
    const backwards = collator.compare('coté', 'côte') > 0
    if (spec.backwards !== undefined && spec.backwards !== backwards) throw unsupported('backwards', spec.backwards, ` for locale ${formatValue(spec.locale)}`)
  }
  const compare = collator.compare
  const compareAll = strength === 5 ? (a: string, b: string) => compare(a, b) || compareStrings(a.normalize('NFD'), b.normalize('NFD')) : (a: string, b: string) => compare(a, b)
  return { key, compareStrings: compareAll, compareValues: (a, b) => compareBson(a, b, compareAll) }
}

function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  switch (typeof value) {
    case 'string':
      return 'string'
    case 'boolean':
      return 'bool'
    case 'number':
      return Number.isInteger(value) ? 'int' : 'double'
    case 'undefined':
      return 'missing'
  }
  const bsonType = (value as { _bsontype?: unknown })._bsontype
  if (bsonType === 'Long') return 'long'
  if (bsonType === 'ObjectId') return 'objectId'
  if (value instanceof Date) return 'date'
  return typeof bsonType === 'string' ? bsonType.toLowerCase() : 'object'
}
