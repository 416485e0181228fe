import type { ApiFile } from '../api-file/api-file.js'
import { HTTPException } from '../errors.js'

/**
 * What the router's create answered a document it refused, in one line: each validation issue as
 * `field: message` (`title: Field required; colour: Extra inputs are not permitted`), else the detail.
 * A duplicate is answered "Document not created", as a POST is: `unique` names the fields that are
 * unique, so the line says which values to look at. Undefined for anything but a refusal (a 4xx):
 * a database out of reach refuses no document.
 */
export function refusalDetail(error: unknown, unique: readonly string[]): string | undefined {
  if (!(error instanceof HTTPException) || error.statusCode >= 500) return undefined
  if (typeof error.detail !== 'string') {
    return error.detail.map((issue) => `${issue.loc.slice(1).join('.') || 'the document'}: ${issue.msg}`).join('; ')
  }
  if (error.code === 'FMC_ERR_NOT_CREATED') {
    return `${error.detail}: one of its unique fields (${unique.join(', ')}) has the value of a stored document or of an earlier line`
  }
  return error.detail
}

/** The fields unique in the collection, by any router of the file serving it: `id`, identifier fields, unique indexes (`a+b` for a compound one). */
export function uniqueFields(api: ApiFile, collection: string): string[] {
  const fields = new Set(['id'])
  for (const router of Object.values(api.routers)) {
    if (router.collection !== collection) continue
    if (router.identifierField !== undefined && router.identifierField !== '_id') fields.add(router.identifierField)
    for (const index of router.indexes ?? []) if (index.unique === true) fields.add(Object.keys(index.key).join('+'))
  }
  return [...fields]
}
