import { isRecord } from '../is-record.js'
import type { ShapeNode } from '../shapes/model-shape.js'
import { invalidParameter } from './data-api-error.js'
import type { CompiledStage } from './pipeline-stages.js'
import { newFieldName, objectHint, objectShape, type PipelineState, pathIn, reshaped } from './pipeline-state.js'
import type { Hint } from './type-hints.js'

const NUMBER: ShapeNode = { kind: 'scalar', types: new Set(['number']) }
const ANY: ShapeNode = { kind: 'any' }

/** The accumulators a `$group` takes: those that gather values of the documents, none that runs code (`$accumulator`, `$function`). */
const ACCUMULATORS = ['$sum', '$avg', '$min', '$max', '$first', '$last', '$push', '$addToSet', '$count'] as const

/**
 * `$group`: the key (`null`, a `"$field"` path, a constant, or an object of paths) and accumulators of
 * paths the documents have, or of the whole document (`"$$ROOT"`: after the first stages, only what
 * the caller sees). A hidden field is not there to be grouped by or gathered.
 */
export function groupStage(spec: unknown, state: PipelineState): CompiledStage {
  if (!isRecord(spec) || !Object.hasOwn(spec, '_id')) throw invalidParameter('aggregate: $group takes an object with an _id (the key) and accumulators')
  const fields: Array<[string, ShapeNode]> = []
  const hints: Array<[string, Hint]> = []
  const key = groupKey(spec['_id'], state)
  fields.push(['_id', key.node])
  hints.push(['_id', key.hint])
  for (const [name, accumulator] of Object.entries(spec)) {
    if (name === '_id') continue
    newFieldName(name, `$group: "${name}"`)
    const gathered = accumulated(name, accumulator, state)
    fields.push([name, gathered.node])
    hints.push([name, gathered.hint])
  }
  return { stage: { $group: spec }, state: reshaped(state, objectShape(fields), objectHint(hints)) }
}

function groupKey(key: unknown, state: PipelineState): { node: ShapeNode, hint: Hint } {
  if (key === null || typeof key === 'number' || typeof key === 'boolean') return { node: ANY, hint: undefined }
  if (typeof key === 'string') return key.startsWith('$') ? pathIn(state, key, '$group: _id', true) : { node: ANY, hint: undefined }
  if (!isRecord(key)) throw invalidParameter('aggregate: $group: _id must be null, a "$field" path, a constant or an object of "$field" paths')
  const fields: Array<[string, ShapeNode]> = []
  const hints: Array<[string, Hint]> = []
  for (const [name, path] of Object.entries(key)) {
    const at = pathIn(state, path, `$group: _id.${newFieldName(name, '$group: a key of _id')}`, true)
    fields.push([name, at.node])
    hints.push([name, at.hint])
  }
  return { node: objectShape(fields), hint: objectHint(hints) }
}

function accumulated(name: string, accumulator: unknown, state: PipelineState): { node: ShapeNode, hint: Hint } {
  const keys = isRecord(accumulator) ? Object.keys(accumulator) : []
  if (!isRecord(accumulator) || keys.length !== 1) throw invalidParameter(`aggregate: $group: "${name}" takes one accumulator ({ "$sum": "$field" })`)
  const op = keys[0]!
  if (!(ACCUMULATORS as readonly string[]).includes(op)) throw invalidParameter(`aggregate: $group: accumulator ${op} is not supported (supported: ${ACCUMULATORS.join(', ')})`)
  const operand = accumulator[op]
  const at = `$group: "${name}".${op}`
  if (op === '$count') {
    if (!isRecord(operand) || Object.keys(operand).length > 0) throw invalidParameter(`aggregate: ${at} takes {}`)
    return { node: NUMBER, hint: undefined }
  }
  if (op === '$sum' || op === '$avg') {
    if (typeof operand === 'number') return { node: NUMBER, hint: undefined }
    pathIn(state, operand, at, true)
    return { node: NUMBER, hint: undefined }
  }
  const value = operand === '$$ROOT' ? { node: state.shape, hint: state.hints } : pathIn(state, operand, at, true)
  if (op === '$push' || op === '$addToSet') return { node: { kind: 'array', item: value.node }, hint: value.hint === undefined ? undefined : { kind: 'array', item: value.hint } }
  return value
}
