import { SetupError } from '../errors.js'
import type { CRUDLookup } from './crud-lookup.js'
import type { ResolvedRouterOptions } from './router-option-types.js'

/** What a lookup's link depends on, as CRUDRouter's options and the API file both say it. */
interface LinkFacts {
  readonly localField: string
  readonly identifierField: string
  readonly indexes: ReadonlyArray<{ readonly key: Readonly<Record<string, number>>, readonly unique?: boolean }>
  /** The parent model's name and its required fields. */
  readonly model: string
  readonly required: readonly string[]
}

/**
 * Children are reached through whatever parent holds their link value, so a `localField` other than
 * `_id` must be unique (two parents holding one value would share their children) and required (a
 * parent without it would have none; a unique index lets only one parent lack it). The third
 * condition, that a parent never changes it, the router enforces itself (keep-link-fields.ts). Answers
 * what to change, or undefined when the link is safe; `check` (the API file) reports the same text.
 */
export function localFieldProblem(facts: LinkFacts): string | undefined {
  const field = facts.localField
  if (field === '_id') return undefined
  // A compound unique index makes the combination unique, not the field: it does not count.
  const unique =
    field === facts.identifierField ||
    facts.indexes.some((index) => index.unique === true && Object.keys(index.key).length === 1 && Object.hasOwn(index.key, field))
  if (!unique) {
    return `'localField' '${field}' is not unique, so two parents could hold one value and each reach the other's children: link on '_id', make '${field}' the router's identifierField, or give it a unique index of its own (indexes: [{ key: { ${field}: 1 }, unique: true }])`
  }
  if (!facts.required.includes(field)) {
    return `'localField' '${field}' is not required by the model ${facts.model}: a parent without it would have no children, and its unique index lets only one parent lack it. Make '${field}' required, or link on '_id'`
  }
  return undefined
}

/** The registration check of one lookup of a router (FMC_ERR_LOOKUP_INVALID). */
export function checkLocalField(lookup: CRUDLookup, options: ResolvedRouterOptions): void {
  const problem = localFieldProblem({
    localField: lookup.localField,
    identifierField: options.identifierField,
    indexes: options.indexes,
    model: options.model.$id,
    required: (options.model as { required?: string[] }).required ?? [],
  })
  if (problem !== undefined) throw new SetupError('FMC_ERR_LOOKUP_INVALID', `CRUDLookup '${lookup.prefix}': ${problem}`)
}
