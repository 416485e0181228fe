import { isRecord } from '../is-record.js'
import { translating } from '../store/map-driver-error.js'
import type { ActionInput, ActionResult } from './action-input.js'
import { invalidParameter, missingParameter, readTooLarge } from './data-api-error.js'
import { readFilterOf } from './data-policy.js'
import { encodeValue } from './ejson-response.js'
import { groupStage } from './group-stage.js'
import { lookupStage } from './lookup-stage.js'
import { MAX_FIND_LIMIT } from './page-bounds.js'
import { type CompiledStage, countStage, matchStage, projectStage, sortStage, tallyStage, unwindStage } from './pipeline-stages.js'
import type { PipelineState } from './pipeline-state.js'
import { readView } from './read-view.js'
import { runRouteGuards } from './route-guards.js'
import { projectionOf } from './visible-fields.js'

/** The stages an aggregate takes. */
export const AGGREGATE_STAGES = ['$match', '$project', '$group', '$sort', '$skip', '$limit', '$count', '$unwind', '$lookup'] as const

/** The most stages one pipeline holds. */
export const MAX_STAGES = 100

/**
 * `aggregate` (`{ documents }`): the client's pipeline, each stage checked against the documents as the
 * stages before it left them (pipeline-stages.ts), run after two stages of the endpoint's own: the
 * caller's read filter, then the projection of the paths the caller sees. So no stage sees a document
 * the caller may not read, nor a field it may not see, whatever it names; `$lookup` joins under the
 * joined collection's own policy. Only the stages above, and in them only paths, constants and the
 * listed accumulators: no expression, no `$where`/`$function`/`$expr`, no `$out`/`$merge`. At most
 * 50,000 documents are answered (more is 400, as `find`'s limit).
 */
export async function aggregateDocuments(input: ActionInput): Promise<ActionResult> {
  const { served, body, caller, format } = input
  const { context } = served.source
  const pipeline = body['pipeline']
  if (pipeline === undefined) throw missingParameter('pipeline', 'aggregate')
  if (!Array.isArray(pipeline)) throw invalidParameter("'pipeline' must be an array of stages")
  if (pipeline.length > MAX_STAGES) throw invalidParameter(`'pipeline' holds more than ${MAX_STAGES} stages`)
  await runRouteGuards(served.source, 'GetAll', caller.request, caller.reply)
  const view = await readView(served, caller.request)
  const readFilter = await readFilterOf(context, caller.request)
  const own = [...(readFilter === undefined ? [] : [{ $match: served.raw.mongoFilter(readFilter) }]), { $project: projectionOf(view.shown, view.hidden) }]
  let state: PipelineState = { shape: view.shown, hints: served.hints, filter: context.filterContext, sortable: context.sortable, typed: context.typed, ids: served.raw.ids, restricted: context.policy?.hiddenByAnyRole ?? new Set() }
  const stages: Array<Record<string, unknown>> = []
  for (const [index, raw] of pipeline.entries()) {
    if (!isRecord(raw) || Object.keys(raw).length !== 1) throw invalidParameter(`aggregate: stage ${index} must be an object of one stage (${AGGREGATE_STAGES.join(', ')})`)
    const [name, spec] = Object.entries(raw)[0]!
    const compiled = await compileStage(name, spec, state, input)
    stages.push(compiled.stage)
    state = compiled.state
  }
  const found = await translating(() => served.raw.collection.aggregate([...own, ...stages, { $limit: MAX_FIND_LIMIT + 1 }], served.raw.timeLimit).toArray())
  if (found.length > MAX_FIND_LIMIT) throw readTooLarge(MAX_FIND_LIMIT)
  const hints = state.hints
  return { status: 200, body: { documents: found.map((doc) => encodeValue(doc, hints, format)) } }
}

function compileStage(name: string, spec: unknown, state: PipelineState, input: ActionInput): CompiledStage | Promise<CompiledStage> {
  switch (name) {
    case '$match':
      return matchStage(spec, state)
    case '$project':
      return projectStage(spec, state)
    case '$group':
      return groupStage(spec, state)
    case '$sort':
      return sortStage(spec, state)
    case '$skip':
    case '$limit':
      return countStage(name, spec, state)
    case '$count':
      return tallyStage(spec, state)
    case '$unwind':
      return unwindStage(spec, state)
    case '$lookup':
      return lookupStage(spec, state, input.served, input.collections, input.caller)
    default:
      throw invalidParameter(`aggregate: stage ${name} is not supported (supported: ${AGGREGATE_STAGES.join(', ')})`)
  }
}
