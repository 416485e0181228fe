import { BATCH_STEPS, dispatch } from '../dispatch/dispatch.js'
import { isRecord } from '../is-record.js'
import type { WireDoc } from '../store/store.js'
import type { ActionInput, ActionResult } from './action-input.js'
import { allOrNothing } from './all-or-nothing.js'
import { invalidParameter, missingParameter } from './data-api-error.js'
import { refuseUnlessCreates } from './data-policy.js'
import { encodeValue } from './ejson-response.js'
import { hintAt } from './type-hints.js'

/** The most documents one `insertMany` takes (the body limit bounds it too). */
export const MAX_INSERT_MANY = 50_000

/**
 * `insertOne` (201 `{ insertedId }`) and `insertMany` (201 `{ insertedIds }`): each document created
 * as `POST <prefix>` creates it, through the dispatch (dispatch/dispatch.ts): the create route's guards,
 * the fields the scope or role fixes, the model's check (422 naming the field), the role's `create`
 * filter, the unique indexes. `insertMany` is all or nothing: every document in one transaction.
 */
export async function insertDocuments(input: ActionInput): Promise<ActionResult> {
  const { served, body, caller, format } = input
  const { endpoint, context } = served.source
  await refuseUnlessCreates(context, caller.request)
  const many = input.action === 'insertMany'
  const documents = many ? documentList(body['documents']) : [documentOf(body['document'], 'document', 'insertOne')]
  const create = async (doc: WireDoc) => (await dispatch(endpoint, { op: 'create', body: doc }, caller, BATCH_STEPS)).doc?.['id']
  const precheck = async () => {
    for (const doc of documents) {
      const checked = structuredClone(doc)
      await endpoint.fill?.(caller.request, checked, 'create')
      endpoint.checks.create(checked)
    }
  }
  const ids = many ? await allOrNothing(context.options.db, async () => {
    const created: unknown[] = []
    for (const doc of documents) created.push(await create(doc))
    return created
  }, precheck) : [await create(documents[0]!)]
  const idHint = hintAt(served.hints, '_id')
  const encoded = ids.map((id) => encodeValue(id, idHint, format))
  return { status: 201, body: many ? { insertedIds: encoded } : { insertedId: encoded[0] } }
}

function documentList(raw: unknown): WireDoc[] {
  if (raw === undefined) throw missingParameter('documents', 'insertMany')
  if (!Array.isArray(raw) || raw.length === 0) throw invalidParameter("'documents' must be a non-empty array of documents")
  if (raw.length > MAX_INSERT_MANY) throw invalidParameter(`'documents' holds more than ${MAX_INSERT_MANY} documents: send them in several requests`)
  return raw.map((doc, index) => documentOf(doc, `documents[${index}]`, 'insertMany'))
}

/**
 * A document as the create route takes its body: `_id` is the model's `id` (the library's name for it).
 * A document naming both is refused: which one would be its identifier?
 */
export function documentOf(raw: unknown, key: string, action: string): WireDoc {
  if (raw === undefined) throw missingParameter(key, action)
  if (!isRecord(raw)) throw invalidParameter(`'${key}' must be a document (an object)`)
  if (Object.hasOwn(raw, 'id')) throw invalidParameter(`'${key}' names a field 'id': the document's identifier is '_id' here (the API's routes name it 'id')`)
  const { _id: id, ...rest } = raw
  return id === undefined ? rest : { id, ...rest }
}
