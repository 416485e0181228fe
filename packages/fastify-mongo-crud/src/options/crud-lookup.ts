import type { RouteDependencies } from '../dependency.js'
import { SetupError } from '../errors.js'
import type { InModel, OutModel } from '../models.js'
import type { RouteName } from '../route-names.js'
import { checkDependencies, checkDisabled, type DependencyOptions, type DisableOptions, relationModels, requireName } from './relation-options.js'

export interface CRUDLookupOptions<M extends InModel = InModel, O extends OutModel = OutModel> extends RouteDependencies<M>, DisableOptions {
  /** Model of the children (made by MongoModel); dependencies of the child write routes see bodies of it. */
  model: M
  /** Output model of the children (beyond the Python original): only its fields appear in responses. */
  modelOut?: O
  collectionName: string
  /** Path segment of the child routes, without a leading slash (`messages`). */
  prefix: string
  /**
   * Field of the parent that children point at: `_id`, or a field the parent model requires that is the
   * router's `identifierField` or has a unique index of its own (checked when the router registers). The
   * router then refuses a PUT or PATCH of the parent that would change it (docs/security.md).
   */
  localField: string
  /** Field of the child that holds the parent's `localField` value. */
  foreignField: string
}

const CODE = 'FMC_ERR_LOOKUP_INVALID'

/** Declares child routes under a parent item, backed by a second collection. */
export class CRUDLookup<M extends InModel = InModel, O extends OutModel = OutModel> {
  readonly model: M
  readonly modelOut: O | undefined
  readonly collectionName: string
  readonly prefix: string
  readonly localField: string
  readonly foreignField: string
  readonly dependencies: Required<DependencyOptions>
  /** Child routes left out (`disable*` keys): not registered, so 404 and absent from the OpenAPI document. */
  readonly disabled: ReadonlySet<RouteName>

  constructor(options: CRUDLookupOptions<M, O>) {
    const { raw, model, modelOut } = relationModels<M, O>('CRUDLookup', CODE, options)
    this.model = model
    this.modelOut = modelOut
    this.collectionName = requireName('CRUDLookup', CODE, raw, 'collectionName')
    const prefix = requireName('CRUDLookup', CODE, raw, 'prefix')
    if (!/^[A-Za-z0-9_-]+$/.test(prefix)) {
      throw new SetupError(CODE, `CRUDLookup: 'prefix' must be one path segment without slashes, received ${JSON.stringify(prefix)}`)
    }
    this.prefix = prefix
    this.localField = requireName('CRUDLookup', CODE, raw, 'localField')
    this.foreignField = requireName('CRUDLookup', CODE, raw, 'foreignField')
    this.dependencies = checkDependencies('CRUDLookup', CODE, raw)
    this.disabled = checkDisabled('CRUDLookup', CODE, raw)
    Object.freeze(this)
  }
}
