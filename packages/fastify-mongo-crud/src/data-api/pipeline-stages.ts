import { isRecord } from '../is-record.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import { toMongoFilter } from '../store/to-mongo-filter.js'
import { clientFilter } from './client-filter.js'
import { invalidParameter } from './data-api-error.js'
import { dataSort } from './data-sort.js'
import { newFieldName, objectHint, objectShape, type PipelineState, pathIn, reshaped } from './pipeline-state.js'
import { hintWith, placeAt, shapeWith } from './shape-edits.js'
import type { Hint } from './type-hints.js'

type Document = Record<string, unknown>

/** A stage as it runs, and the documents it leaves. */
export interface CompiledStage {
  readonly stage: Document
  readonly state: PipelineState
}

/** `$match`: the router's closed filter grammar over the documents as they are at that point (compiled to the database's terms). */
export function matchStage(spec: unknown, state: PipelineState): CompiledStage {
  const filter = clientFilter(spec, state.filter, 'aggregate: $match')
  return { stage: { $match: toMongoFilter(filter, state.typed, state.ids) }, state }
}

/** `$sort`: fields the documents have (the router's sortable ones, before any stage reshapes them), each 1 or -1. */
export function sortStage(spec: unknown, state: PipelineState): CompiledStage {
  const sort = dataSort(spec, state.sortable, state.filter.guard)
  if (sort === undefined) throw invalidParameter('aggregate: $sort takes at least one field')
  return { stage: { $sort: sort }, state }
}

/** `$skip` and `$limit`: a non-negative (for `$limit`, positive) integer. */
export function countStage(name: '$skip' | '$limit', spec: unknown, state: PipelineState): CompiledStage {
  const least = name === '$limit' ? 1 : 0
  if (typeof spec !== 'number' || !Number.isInteger(spec) || spec < least) throw invalidParameter(`aggregate: ${name} takes an integer of at least ${least}`)
  return { stage: { [name]: spec }, state }
}

/** `$count`: one document of one field, the number of documents. */
export function tallyStage(spec: unknown, state: PipelineState): CompiledStage {
  const name = newFieldName(spec, '$count')
  return { stage: { $count: name }, state: reshaped(state, objectShape([[name, { kind: 'scalar', types: new Set(['number']) }]]), undefined) }
}

/** `$unwind`: `"$path"`, or `{ path, preserveNullAndEmptyArrays?, includeArrayIndex? }`; the path's items take its place. */
export function unwindStage(spec: unknown, state: PipelineState): CompiledStage {
  const options = isRecord(spec) ? spec : { path: spec }
  for (const key of Object.keys(options)) {
    if (key !== 'path' && key !== 'preserveNullAndEmptyArrays' && key !== 'includeArrayIndex') throw invalidParameter(`aggregate: $unwind: option ${key} is not supported`)
  }
  const { path } = pathIn(state, options['path'], '$unwind', true)
  const segments = path.split('.')
  if (options['preserveNullAndEmptyArrays'] !== undefined && typeof options['preserveNullAndEmptyArrays'] !== 'boolean') throw invalidParameter('aggregate: $unwind: preserveNullAndEmptyArrays takes true or false')
  let shape = shapeWith(state.shape, segments, (node) => (node.kind === 'array' ? node.item : node))
  let hints = hintWith(state.hints, segments, (hint) => (hint?.kind === 'array' ? hint.item : hint))
  if (options['includeArrayIndex'] !== undefined) {
    const index = newFieldName(options['includeArrayIndex'], '$unwind: includeArrayIndex')
    shape = shape.kind === 'object' ? { ...shape, fields: new Map([...shape.fields, [index, { kind: 'scalar', types: new Set(['number']) }]]) } : shape
    hints = hintWith(hints, [index], () => ({ kind: 'int64' }))
  }
  return { stage: { $unwind: options }, state: reshaped(state, shape, hints) }
}

/**
 * `$project`: fields kept (1) or dropped (0), never both but for `_id`, and fields renamed from a path
 * (`"total": "$amount"`). Expressions are refused: a stage names values, never computes them.
 */
export function projectStage(spec: unknown, state: PipelineState): CompiledStage {
  if (!isRecord(spec) || Object.keys(spec).length === 0) throw invalidParameter('aggregate: $project takes an object of fields')
  const entries = Object.entries(spec)
  for (const [key, value] of entries) {
    if (value !== 0 && value !== 1 && value !== true && value !== false && typeof value !== 'string') {
      throw invalidParameter(`aggregate: $project: the value of "${key}" must be 0, 1 or a "$field" path (expressions are not supported)`)
    }
  }
  const dropped = entries.filter(([key, value]) => key !== '_id' && (value === 0 || value === false))
  const kept = entries.filter(([key, value]) => key !== '_id' && value !== 0 && value !== false)
  if (dropped.length > 0 && kept.length > 0) throw invalidParameter('aggregate: $project: inclusion and exclusion cannot be mixed (but for _id)')
  const withoutId = spec['_id'] === 0 || spec['_id'] === false
  if (kept.length === 0) {
    let shape = state.shape
    for (const [key] of [...dropped, ...(withoutId ? [['_id', 0] as const] : [])]) {
      shape = shapeWith(shape, pathIn(state, key, '$project', false).path.split('.'), () => undefined)
    }
    return { stage: { $project: spec }, state: reshaped(state, shape, state.hints) }
  }
  const fields = new Map<string, ShapeNode>()
  const hints = new Map<string, Hint>()
  if (!withoutId && state.shape.kind === 'object' && state.shape.fields.has('_id')) placeAt(fields, hints, ['_id'], state.shape.fields.get('_id')!, pathIn(state, '_id', '$project', false).hint)
  for (const [key, value] of kept) {
    const renamed = typeof value === 'string'
    const target = renamed ? [newFieldName(key, `$project: "${key}"`)] : pathIn(state, key, '$project', false).path.split('.')
    const { node, hint } = pathIn(state, renamed ? value : key, `$project: "${key}"`, renamed)
    placeAt(fields, hints, target, node, hint)
  }
  return { stage: { $project: spec }, state: reshaped(state, objectShape(fields), objectHint(hints)) }
}
