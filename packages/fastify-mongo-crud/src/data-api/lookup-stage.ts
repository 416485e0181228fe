import { HTTPException } from '../errors.js'
import { isRecord } from '../is-record.js'
import { checkClientPath } from '../query/check-client-path.js'
import { nodeAt } from '../shapes/model-shape.js'
import type { ActionCaller } from './action-input.js'
import { invalidParameter } from './data-api-error.js'
import { readFilterOf } from './data-policy.js'
import type { CompiledStage } from './pipeline-stages.js'
import { newFieldName, type PipelineState, pathIn, reshaped } from './pipeline-state.js'
import { readView } from './read-view.js'
import { runRouteGuards } from './route-guards.js'
import type { ServedCollection, ServedCollections } from './served-collections.js'
import { placeAt } from './shape-edits.js'
import type { Hint } from './type-hints.js'
import { projectionOf } from './visible-fields.js'

/**
 * `$lookup` by `localField` and `foreignField` into another served collection, under that collection's
 * own router: its list guards run, its read filter selects the joined documents, and they carry only
 * the paths its caller sees (the stage's pipeline: `$match` of the read filter, `$project` of the
 * visible paths). `foreignField` must be a field its router lets clients filter on: matching on a
 * hidden field would tell its values. The `pipeline` and `let` forms are refused (they run
 * expressions); a collection no router serves is the same 400 as for the request's namespace.
 */
export async function lookupStage(spec: unknown, state: PipelineState, served: ServedCollection, collections: ServedCollections, caller: ActionCaller): Promise<CompiledStage> {
  if (!isRecord(spec)) throw invalidParameter('aggregate: $lookup takes { from, localField, foreignField, as }')
  for (const key of Object.keys(spec)) {
    if (!['from', 'localField', 'foreignField', 'as'].includes(key)) throw invalidParameter(`aggregate: $lookup: ${key} is not supported (from, localField, foreignField and as are)`)
  }
  const from = typeof spec['from'] === 'string' ? collections.byName(spec['from']) : undefined
  if (from === undefined || from.database !== served.database) throw invalidParameter(`no rule exists for namespace '${served.database}.${String(spec['from'])}'`)
  const local = pathIn(state, spec['localField'], '$lookup: localField', false, true)
  const foreignField = foreignPath(spec['foreignField'], from)
  const as = newFieldName(spec['as'], '$lookup: as')
  const { context } = from.source
  await runRouteGuards(from.source, 'GetAll', caller.request, caller.reply)
  const view = await readView(from, caller.request)
  const readFilter = await readFilterOf(context, caller.request)
  const pipeline = [...(readFilter === undefined ? [] : [{ $match: from.raw.mongoFilter(readFilter) }]), { $project: projectionOf(view.shown, view.hidden) }]
  const stage = { $lookup: { from: from.name, localField: local.path, foreignField, pipeline, as } }
  const fields = state.shape.kind === 'object' ? new Map(state.shape.fields) : new Map()
  const hints = new Map<string, Hint>(state.hints?.kind === 'object' ? state.hints.fields : [])
  placeAt(fields, hints, [as], { kind: 'array', item: view.shown }, from.hints === undefined ? undefined : { kind: 'array', item: from.hints })
  const shape = state.shape.kind === 'object' ? { ...state.shape, fields } : state.shape
  const present = [...hints].filter((entry): entry is [string, NonNullable<Hint>] => entry[1] !== undefined)
  return { stage, state: reshaped(state, shape, present.length === 0 ? undefined : { kind: 'object', fields: new Map(present) }) }
}

/** `foreignField`: a path the joined collection's router lets clients filter on. */
function foreignPath(raw: unknown, from: ServedCollection): string {
  if (typeof raw !== 'string') throw invalidParameter('aggregate: $lookup: foreignField must be a field path')
  let segments: string[]
  try {
    segments = checkClientPath('filters', raw)
  } catch (error) {
    if (error instanceof HTTPException) throw invalidParameter(`aggregate: $lookup: foreignField "${raw}" is not a valid field path`)
    throw error
  }
  if (nodeAt(from.source.context.filterContext.visible, segments) === undefined) throw invalidParameter(`aggregate: $lookup: foreignField "${raw}" is not a field clients may filter ${from.name} on`)
  return raw
}
