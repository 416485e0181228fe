import { closestName, didYouMean } from '../did-you-mean.js'
import { IDENTIFIER_PATTERN } from './router-option-schemas.js'

/** A problem of one option, at its path in the options (`['indexes', 0, 'key', 'agee']`). */
interface OptionProblem {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  /** The problem is the key at the end of the path (a misspelt field name), not its value. */
  readonly onKey?: boolean
}

/** What the checks below need of a router: its model's top-level fields and the options that name them. */
interface RouterFieldFacts {
  readonly fields: readonly string[]
  readonly identifierField?: string | undefined
  readonly indexes?: ReadonlyArray<{ readonly key: Readonly<Record<string, unknown>> }> | undefined
  readonly filterable?: readonly string[] | undefined
  readonly sortable?: readonly string[] | undefined
}

const IDENTIFIER = new RegExp(IDENTIFIER_PATTERN)

/**
 * The options that must name fields of the model, checked against it: registration throws the first
 * problem (resolve-router-options.ts), the API file's check reports them all at their places. A
 * misspelt index field would index nothing, silently; a misspelt identifier would serve nothing; a
 * misspelt filterable or sortable field would let clients filter or sort on nothing they meant.
 */
export function routerFieldProblems(facts: RouterFieldFacts): OptionProblem[] {
  const problems: OptionProblem[] = []
  const fields = new Set(facts.fields)
  // Every message lists the fields the option may name, and ends suggesting the closest, so that a misspelt one is put right at once.
  const named = facts.fields.filter((field) => field !== 'id')
  const listed = `(${named.join(', ')})`
  /** `: did you mean 'rank.x'?` for `rnak.x`: the suggestion is for the top-level field, the rest of the path kept. */
  const suggestion = (path: string, known: readonly string[]) => {
    const [top, ...rest] = path.split('.')
    const closest = fields.has(top!) ? undefined : closestName(top!, known)
    return closest === undefined ? '' : `: did you mean '${[closest, ...rest].join('.')}'?`
  }
  const identifier = facts.identifierField
  if (identifier !== undefined && identifier !== '_id' && (!IDENTIFIER.test(identifier) || !fields.has(identifier))) {
    problems.push({
      path: ['identifierField'],
      message: `'identifierField' must be '_id' or a top-level field of the model ${listed}, received ${JSON.stringify(identifier)}${didYouMean(identifier, named)}`,
    })
  }
  facts.indexes?.forEach((index, position) => {
    for (const field of Object.keys(index.key)) {
      const segments = field.split('.')
      if (field === '_id' || (fields.has(segments[0]!) && !segments.some((segment) => segment === '' || segment.startsWith('$')))) continue
      problems.push({
        path: ['indexes', position, 'key', field],
        message: `'indexes[${position}]'.key names '${field}', which is not '_id' or a field of the model ${listed}${suggestion(field, ['_id', ...named])}`,
        onKey: true,
      })
    }
  })
  for (const key of ['filterable', 'sortable'] as const) {
    facts[key]?.forEach((path, position) => {
      const top = path.split('.')[0]!
      if (top !== 'id' && top !== '_id' && !fields.has(top)) {
        problems.push({ path: [key, position], message: `'${key}[${position}]' names '${path}', which is not 'id' or a field of the model ${listed}${suggestion(path, ['id', ...named])}` })
      }
    })
  }
  return problems
}
