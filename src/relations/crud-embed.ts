import { SetupError } from '../errors.js'
import { isModel, isModelOut, type MongoModelSchema } from '../models.js'
import { checkDependencies, type DependencyOptions, requireName } from './relation-options.js'

export interface CRUDEmbedOptions extends DependencyOptions {
  /** Model of one embedded item (made by MongoModel: it has its own `id`). */
  model: MongoModelSchema
  /** Output model of the children (an extension of the spec): only its fields appear in responses. */
  modelOut?: MongoModelSchema
  /** The parent's array field holding the items; also the path segment of the child routes. */
  embedName: string
}

const CODE = 'FMC_ERR_EMBED_INVALID'

/** Declares child routes over an array of documents stored inside the parent. */
export class CRUDEmbed {
  readonly model: MongoModelSchema
  readonly modelOut: MongoModelSchema | undefined
  readonly embedName: string
  readonly dependencies: Required<DependencyOptions>

  constructor(options: CRUDEmbedOptions) {
    const raw = (typeof options === 'object' && options !== null ? options : {}) as unknown as Record<string, unknown>
    if (!isModel(raw['model'])) throw new SetupError(CODE, `CRUDEmbed: 'model' must be a model made by MongoModel()`)
    this.model = raw['model']
    if (raw['modelOut'] !== undefined && !isModelOut(raw['modelOut'])) {
      throw new SetupError(CODE, `CRUDEmbed: 'modelOut' must be a model made by MongoModelOut()`)
    }
    this.modelOut = raw['modelOut'] as MongoModelSchema | undefined
    const name = requireName('CRUDEmbed', CODE, raw, 'embedName')
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new SetupError(CODE, `CRUDEmbed: 'embedName' must be a plain field name, received ${JSON.stringify(name)}`)
    }
    this.embedName = name
    this.dependencies = checkDependencies('CRUDEmbed', CODE, raw)
    Object.freeze(this)
  }
}
