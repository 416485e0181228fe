import { didYouMean } from '../did-you-mean.js'
import { SetupError } from '../errors.js'
import { nodeAt, type ShapeNode } from '../shapes/model-shape.js'
import { hiddenFieldMessage } from './router-field-problems.js'
import type { ResolvedRouterOptions } from './router-option-types.js'

/**
 * The paths `filterable`, `sortable` and `defaultSort.field` name, checked below the top level (which
 * router-field-problems.ts checked) against the shapes: each must be a path the output model shows
 * (`shown`). One it hides (`profile.secret` under a shown `profile`, a hidden open field's key) is
 * refused as hidden, since a filter, an order or a grouping on it would reveal its values; one neither
 * model declares as not a field of the output model (stored documents may still hold it, written by
 * other code). Throws the first problem; `defaultSort.field` is otherwise checked as a request's `sort_by` is (default-sort.ts).
 */
export function refuseUnshownPaths(options: Pick<ResolvedRouterOptions, 'filterable' | 'sortable' | 'defaultSort'>, stored: ShapeNode, shown: ShapeNode): void {
  const named: Array<[string, string]> = [
    ...(['filterable', 'sortable'] as const).flatMap((key) => (options[key] ?? []).map((path, position): [string, string] => [`${key}[${position}]`, path])),
    ...(options.defaultSort === undefined ? [] : [['defaultSort.field', options.defaultSort.field] as [string, string]]),
  ]
  for (const [option, path] of named) {
    const segments = path.split('.')
    if (segments[0] === 'id') segments[0] = '_id'
    if (nodeAt(shown, segments) !== undefined) continue
    const hidden = nodeAt(stored, segments) !== undefined
    if (!hidden && option === 'defaultSort.field') continue
    const beside = shownBeside(shown, segments)
    const message = hidden ? hiddenFieldMessage(option, path, beside) : `'${option}' names '${path}', which is not a field of the output model${beside.length === 0 ? '' : ` (${beside.join(', ')})`}${didYouMean(path, beside)}`
    throw new SetupError('FMC_ERR_OPTIONS_INVALID', `CRUDRouter: ${message}`)
  }
}

/** The paths the output model shows beside a hidden one: the fields of its deepest shown parent (`profile.city` for `profile.secret`). */
function shownBeside(shown: ShapeNode, segments: readonly string[]): string[] {
  let depth = segments.length - 1
  while (depth > 0 && nodeAt(shown, segments.slice(0, depth)) === undefined) depth--
  let node = depth === 0 ? shown : nodeAt(shown, segments.slice(0, depth))!
  while (node.kind === 'array') node = node.item
  if (node.kind !== 'object') return []
  const parent = segments.slice(0, depth).map((segment, index) => (index === 0 && segment === '_id' ? 'id' : segment))
  return [...node.fields.keys()].map((field) => [...parent, depth === 0 && field === '_id' ? 'id' : field].join('.'))
}
