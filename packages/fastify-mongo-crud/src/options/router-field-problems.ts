import { closestName, didYouMean } from '../did-you-mean.js'
import { IDENTIFIER_PATTERN } from './router-option-schemas.js'

/** A problem of one option, at its path in the options (`['indexes', 0, 'key', 'agee']`). */
interface OptionProblem {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  /** The problem is the key at the end of the path (a misspelt field name), not its value. */
  readonly onKey?: boolean
}

/** What the checks below need of a router: its model's top-level fields, those its output model shows, and the options that name them. */
interface RouterFieldFacts {
  readonly fields: readonly string[]
  readonly identifierField?: string | undefined
  readonly indexes?: ReadonlyArray<{ readonly key: Readonly<Record<string, unknown>> }> | undefined
  readonly filterable?: readonly string[] | undefined
  readonly sortable?: readonly string[] | undefined
  readonly defaultSort?: { readonly field: string } | undefined
  /** The top-level fields of the output model (`modelOut`, or the file's model without its `hidden`); undefined when there is none: all are shown. */
  readonly shown?: readonly string[] | undefined
}

/**
 * Why an option may not name a field the output model hides: what clients filter, sort or group on is
 * an oracle of its values (`filters={"password":{"$regex":"^a"}}` answers or not, `sort_by=password`
 * orders by it). `shown` lists the fields the option may name.
 */
export function hiddenFieldMessage(option: string, path: string, shown: readonly string[]): string {
  const named = option === 'defaultSort.field' ? `'defaultSort.field' ${JSON.stringify(path)} is` : `'${option}' names '${path}', which is`
  return `${named} hidden by the output model: a filter or an order on it would reveal its values (the output model shows: ${shown.join(', ')})`
}

const IDENTIFIER = new RegExp(IDENTIFIER_PATTERN)

/**
 * The options that must name fields of the model, checked against it: registration throws the first
 * problem (resolve-router-options.ts), the API file's check reports them all at their places. A
 * misspelt index field would index nothing, silently; a misspelt identifier would serve nothing; a
 * misspelt filterable or sortable field would let clients filter or sort on nothing they meant, and
 * one the output model hides would let them read its values.
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
  problems.push(...clientFieldProblems(facts, suggestion))
  return problems
}

/**
 * `filterable`, `sortable` and `defaultSort.field`: what clients may name, so fields of the output model
 * only. A field of the model it hides is refused as such; an unknown one is listed among the fields it
 * shows, and the suggestion is one of those (never a hidden field).
 */
function clientFieldProblems(facts: RouterFieldFacts, suggestion: (path: string, known: readonly string[]) => string): OptionProblem[] {
  const problems: OptionProblem[] = []
  const fields = new Set(facts.fields)
  const shown = facts.shown === undefined ? facts.fields : facts.fields.filter((field) => facts.shown!.includes(field))
  const hides = shown.length < facts.fields.length
  const named = shown.filter((field) => field !== 'id')
  const whose = hides ? `a field of the output model (${named.join(', ')})` : `a field of the model (${named.join(', ')})`
  const hidden = (path: string) => {
    const top = path.split('.')[0]!
    return top !== 'id' && top !== '_id' && fields.has(top) && !shown.includes(top)
  }
  for (const key of ['filterable', 'sortable'] as const) {
    facts[key]?.forEach((path, position) => {
      const top = path.split('.')[0]!
      if (hidden(path)) problems.push({ path: [key, position], message: hiddenFieldMessage(`${key}[${position}]`, path, ['id', ...named]) })
      else if (top !== 'id' && top !== '_id' && !fields.has(top)) {
        problems.push({ path: [key, position], message: `'${key}[${position}]' names '${path}', which is not 'id' or ${whose}${suggestion(path, ['id', ...named])}` })
      }
    })
  }
  const sortField = facts.defaultSort?.field
  if (sortField !== undefined && hidden(sortField)) problems.push({ path: ['defaultSort', 'field'], message: hiddenFieldMessage('defaultSort.field', sortField, ['id', ...named]) })
  return problems
}
