import { SetupError } from '../errors.js'
import { type InModel, isModel, isModelOut, type OutModel } from '../models.js'

export interface CRUDPopulateOptions<M extends InModel = InModel, O extends OutModel = OutModel> {
  field: string
  collection: string
  /** Model of the populated documents (made by MongoModel). */
  model: M
  /** Output model of the populated documents (made by MongoModelOut): only its fields appear. */
  modelOut?: O
}

const fail = (message: string) => new SetupError('FMC_ERR_POPULATE_INVALID', `CRUDPopulate: ${message}`)

function requireString(options: Record<string, unknown>, key: 'field' | 'collection'): string {
  const value = options[key]
  if (typeof value !== 'string' || value.trim() === '') throw fail(`'${key}' must be a non-empty string`)
  return value
}

/**
 * Declares that `field` holds ids of documents in `collection`, to be replaced by those documents in
 * GET responses. A declaration only: it checks its options and does no database work.
 */
export class CRUDPopulate<M extends InModel = InModel, O extends OutModel = OutModel> {
  readonly field: string
  readonly collection: string
  readonly model: M
  readonly modelOut: O | undefined

  constructor(options: CRUDPopulateOptions<M, O>) {
    const raw = (typeof options === 'object' && options !== null ? options : {}) as unknown as Record<string, unknown>
    this.field = requireString(raw, 'field')
    this.collection = requireString(raw, 'collection')
    if (!isModel(raw['model'])) throw fail(`'model' must be a model made by MongoModel()`)
    this.model = raw['model'] as M
    if (raw['modelOut'] !== undefined && !isModelOut(raw['modelOut'])) {
      throw fail(`'modelOut' must be a model made by MongoModelOut()`)
    }
    this.modelOut = raw['modelOut'] as O | undefined
    Object.freeze(this)
  }
}
