import type { Caller } from '../core/router-context.js'
import { DROP } from '../schema/fit-document.js'
import type { WireDoc } from '../store/store.js'
import type { Resource } from './resource.js'

/**
 * A stored document as GET one answers it, as a value: presented (populated), fitted to the output
 * model and serialized (hidden fields gone). Undefined when none of it can be served. For answers
 * that carry documents inside another body (the service API, a batch's results).
 */
export async function shownDocument(resource: Resource, doc: WireDoc, caller: Caller): Promise<WireDoc | undefined> {
  const { presenter } = resource
  const fitted = presenter.fit(await resource.present(doc, caller), caller.request)
  return fitted === DROP ? undefined : (JSON.parse(presenter.serialize(fitted)) as WireDoc)
}
