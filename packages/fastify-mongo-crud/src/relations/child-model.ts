import type { TSchema } from 'typebox'
import type { MongoModelSchema } from '../models.js'
import type { ListSpec } from '../query/parse-client-query.js'
import type { FilterContext } from '../query/parse-filter.js'
import { partialModel, refTo } from '../schema/partial-model.js'
import { buildShape, type ShapeNode } from '../shapes/model-shape.js'

/** Everything a child resource (lookup children, embedded items) needs from its models, built once. */
export interface ChildModel {
  readonly model: MongoModelSchema
  readonly out: MongoModelSchema
  readonly typed: ShapeNode
  readonly patch: MongoModelSchema
  readonly listSpec: ListSpec
  readonly schemas: TSchema[]
}

export function buildChildModel(
  model: MongoModelSchema,
  modelOut: MongoModelSchema | undefined,
  parentListSpec: ListSpec,
  /** The router's models by `$id`, for `$ref`s in the output model (schema/router-refs.ts). */
  refs: ReadonlyMap<string, TSchema> = new Map()
): ChildModel {
  const out = modelOut ?? model
  const typed = buildShape(model)
  const visible = buildShape(out, refs)
  const patch = partialModel(model)
  const filterContext: FilterContext = { visible, typed, limits: parentListSpec.filterContext.limits }
  return {
    model,
    out,
    typed,
    patch,
    listSpec: { sortable: visible, filterContext, page: parentListSpec.page },
    schemas: [model, out, patch],
  }
}

export { refTo as ref }
