import type { TSchema } from 'typebox'
import type { Fit } from '../schema/fit-document.js'
import { createDocumentFitter, type FitSource } from '../schema/fit-response.js'
import { compileModelSerializer } from '../schema/serializer.js'
import type { WireDoc } from '../store/store.js'
import type { Caller } from './router-context.js'
import type { ListPresenter } from './serve-list.js'

/** What a list's populates do for its presenter (relations/populate.ts's Populator). */
interface ListPopulates {
  populate(docs: WireDoc[], caller: Caller): Promise<WireDoc[]>
  references(doc: WireDoc): number
}

/**
 * Makes the presenters of one router's lists: each shows documents with one output model, fitted to
 * it (docs/http-contract.md) and serialized by it. Both compile on first use, when every router of the app has
 * registered: a populated schema is complete only then.
 */
export function listPresenters(compileFit: (schema: TSchema) => Fit, schemas: readonly TSchema[]) {
  return (schema: TSchema, source: FitSource, populates?: ListPopulates): ListPresenter => {
    let serialize: ((doc: unknown) => string) | undefined
    return {
      collection: source.collection,
      populate: populates && ((docs, caller) => populates.populate(docs, caller)),
      references: populates && ((doc) => populates.references(doc)),
      fit: createDocumentFitter(compileFit, schema, source),
      serialize: (doc) => {
        serialize ??= compileModelSerializer(schema, schemas)
        return serialize(doc)
      },
    }
  }
}
