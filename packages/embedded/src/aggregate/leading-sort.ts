import { type Document, isNonArrayObject } from '../document.js'

/**
 * A pipeline's leading `$sort` (after its leading `$match`), which the collection's read then does
 * itself, as a find's sort (read-documents.ts), as MongoDB moves a leading `$sort` into the query:
 * an index may serve it, and a sort without one keeps the documents' BSON (about a third of what
 * decoded documents take) in slices, instead of the stage keeping decoded documents. `limit`: a
 * `$limit` right after it (positive integer), which bounds what the sort keeps; the `$limit` stage
 * itself stays in the pipeline. Undefined when the pipeline does not start with a plain `$sort`
 * (one that names a `$` key, such as `$natural` or a `$meta` sort, stays a stage).
 */
export function leadingSort(stages: Document[]): { sort: Document, limit: number | undefined } | undefined {
  const [first, next] = stages
  if (!isNonArrayObject(first) || Object.keys(first).length !== 1 || !Object.hasOwn(first, '$sort')) return undefined
  const sort = first['$sort']
  if (!isNonArrayObject(sort) || Object.keys(sort).some((key) => key.startsWith('$'))) return undefined
  const limit = isNonArrayObject(next) && Object.keys(next).length === 1 ? next['$limit'] : undefined
  return { sort, limit: typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? limit : undefined }
}
