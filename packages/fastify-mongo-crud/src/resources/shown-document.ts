import type { FastifyRequest } from 'fastify'
import type { Caller } from '../core/router-context.js'
import type { ListPresenter } from '../core/serve-list.js'
import { DROP } from '../schema/fit-document.js'
import type { WireDoc } from '../store/store.js'
import type { Resource } from './resource.js'

/**
 * A stored document as GET one answers it, as JSON text: presented (populated), fitted to the output
 * model and serialized (hidden fields gone). Undefined when none of it can be served. For answers
 * that carry documents inside another body (a batch's results), which write the text as it is.
 */
export async function shownJson(resource: Resource, doc: WireDoc, caller: Caller): Promise<string | undefined> {
  return presentedJson(resource.presenter, await resource.present(doc, caller), caller.request)
}

/** A document already presented (a list's page is populated at once) fitted and serialized; undefined when none of it can be served. */
export function presentedJson(presenter: ListPresenter, doc: WireDoc, request: FastifyRequest): string | undefined {
  const fitted = presenter.fit(doc, request)
  return fitted === DROP ? undefined : presenter.serialize(fitted)
}

/** The same document as a value (the service API answers values). */
export async function shownDocument(resource: Resource, doc: WireDoc, caller: Caller): Promise<WireDoc | undefined> {
  const json = await shownJson(resource, doc, caller)
  return json === undefined ? undefined : (JSON.parse(json) as WireDoc)
}
