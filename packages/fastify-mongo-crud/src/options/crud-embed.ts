import type { RouteDependencies } from '../dependency.js'
import { SetupError } from '../errors.js'
import type { InModel, OutModel } from '../models.js'
import type { RouteName } from '../route-names.js'
import { checkDependencies, checkDisabled, type DependencyOptions, type DisableOptions, relationModels, requireName } from './relation-options.js'

/** Embedded items have no PUT route, so there is no `disableReplaceOne` to take, nor a `dependenciesReplaceOne` that would run. */
export interface CRUDEmbedOptions<M extends InModel = InModel, O extends OutModel = OutModel>
  extends Omit<RouteDependencies<M>, 'dependenciesReplaceOne'>, Omit<DisableOptions, 'disableReplaceOne'> {
  /** Model of one embedded item (made by MongoModel: it has its own `id`); item dependencies see bodies of it. */
  model: M
  /** Output model of the children (beyond the Python original): only its fields appear in responses. */
  modelOut?: O
  /** The parent's array field holding the items; also the path segment of the child routes. */
  embedName: string
}

const CODE = 'FMC_ERR_EMBED_INVALID'

/** The five routes of an embed (no ReplaceOne: items are PATCHed, or replaced with their parent). */
export const EMBED_ROUTES: readonly RouteName[] = ['GetAll', 'GetOne', 'CreateOne', 'UpdateOne', 'DeleteOne']

/** Declares child routes over an array of documents stored inside the parent. */
export class CRUDEmbed<M extends InModel = InModel, O extends OutModel = OutModel> {
  readonly model: M
  readonly modelOut: O | undefined
  readonly embedName: string
  readonly dependencies: Required<DependencyOptions>
  /** Child routes left out (`disable*` keys): not registered, so 404 and absent from the OpenAPI document. */
  readonly disabled: ReadonlySet<RouteName>

  constructor(options: CRUDEmbedOptions<M, O>) {
    const { raw, model, modelOut } = relationModels<M, O>('CRUDEmbed', CODE, options)
    this.model = model
    this.modelOut = modelOut
    const name = requireName('CRUDEmbed', CODE, raw, 'embedName')
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new SetupError(CODE, `CRUDEmbed: 'embedName' must be a plain field name, received ${JSON.stringify(name)}`)
    }
    this.embedName = name
    this.dependencies = checkDependencies('CRUDEmbed', CODE, raw)
    // Refused rather than ignored: whoever sets it expects a PUT route that embeds never had.
    if (raw['disableReplaceOne'] !== undefined) {
      throw new SetupError(CODE, `CRUDEmbed: 'disableReplaceOne' does not apply: embedded items have no PUT route (PATCH an item, or PUT the parent)`)
    }
    this.disabled = checkDisabled('CRUDEmbed', CODE, raw, EMBED_ROUTES)
    Object.freeze(this)
  }
}
