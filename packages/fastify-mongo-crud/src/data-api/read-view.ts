import type { FastifyRequest } from 'fastify'
import type { ShapeNode } from '../shapes/model-shape.js'
import { hiddenFieldsOf } from './data-policy.js'
import type { ServedCollection } from './served-collections.js'
import { prunedTo, shownShape } from './visible-fields.js'

type Document = Record<string, unknown>

/** What one caller sees of a collection: the output model less its role's hidden fields, and a document pruned to it. */
export interface ReadView {
  readonly shown: ShapeNode
  readonly hidden: ReadonlySet<string>
  prune(doc: Document): Document
}

/**
 * The caller's view. Besides the fields its role does not see, a populated field whose target router
 * shows its documents only to some callers is left out (relations/populate.ts `guards`): GET shows it
 * populated with what the caller may read, and the Data API, which answers documents as stored, would
 * otherwise answer the ids GET hides. Left out, it is neither answered nor named, as a hidden field.
 */
export async function readView(served: ServedCollection, request: FastifyRequest): Promise<ReadView> {
  const guard = served.source.context.filterContext.guard
  const fields = served.shown.kind === 'object' ? [...served.shown.fields.keys()] : []
  const guarded = guard === undefined ? [] : fields.filter((field) => guard(field))
  const roleHidden = await hiddenFieldsOf(served.source.context, request)
  const hidden = guarded.length === 0 ? roleHidden : new Set([...roleHidden, ...guarded])
  const shown = shownShape(served.shown, hidden)
  return { shown, hidden, prune: (doc) => prunedTo(doc, shown) as Document }
}
