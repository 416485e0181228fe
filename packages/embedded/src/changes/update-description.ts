import { toValueKey } from '../bson/value-key.js'
import { type Document, isPlainObject } from '../document.js'

/** A field's path: names of sub-document fields, indexes of array elements. */
type Path = (string | number)[]

interface Diff {
  updatedFields: Document
  removedFields: string[]
  truncatedArrays: { field: string, newSize: number }[]
  /** Every path named above, for `disambiguatedPaths`. */
  paths: Path[]
}

/**
 * An update event's `updateDescription`, from the document before and after the update (the log
 * keeps both; not the update itself): each changed field by its dotted path, down into
 * sub-documents and array elements (`a.b`, `list.3`), fields gone in `removedFields`, and an array
 * cut short in `truncatedArrays`, as MongoDB describes a pipeline update. Where a `$set` replaced a
 * whole sub-document, MongoDB names the field and this the paths within it that changed.
 *
 * With `disambiguate` (a stream's `showExpandedEvents`), `disambiguatedPaths` gives each path whose
 * dotted form could be read two ways (a numeric field name or an array index, a name holding a dot)
 * as its components, indexes as numbers.
 */
export function describeUpdate(before: Document, after: Document, disambiguate: boolean): Document {
  const diff: Diff = { updatedFields: {}, removedFields: [], truncatedArrays: [], paths: [] }
  diffDocuments(before, after, [], diff)
  const { updatedFields, removedFields, truncatedArrays } = diff
  const description: Document = { updatedFields, removedFields, truncatedArrays }
  if (disambiguate) description['disambiguatedPaths'] = disambiguatedPathsOf(diff.paths)
  return description
}

function diffDocuments(before: Document, after: Document, path: Path, diff: Diff): void {
  for (const [name, value] of Object.entries(after)) {
    const at = [...path, name]
    if (Object.hasOwn(before, name)) diffValues(before[name], value, at, diff)
    else updated(diff, at, value)
  }
  for (const name of Object.keys(before)) {
    if (Object.hasOwn(after, name)) continue
    diff.removedFields.push(dotted([...path, name]))
    diff.paths.push([...path, name])
  }
}

function diffValues(before: unknown, after: unknown, at: Path, diff: Diff): void {
  if (toValueKey(before) === toValueKey(after)) return
  if (isPlainObject(before) && isPlainObject(after)) diffDocuments(before, after, at, diff)
  else if (Array.isArray(before) && Array.isArray(after)) diffArrays(before, after, at, diff)
  else updated(diff, at, after)
}

function diffArrays(before: unknown[], after: unknown[], at: Path, diff: Diff): void {
  if (after.length < before.length) {
    diff.truncatedArrays.push({ field: dotted(at), newSize: after.length })
    diff.paths.push(at)
  }
  for (let index = 0; index < after.length; index++) {
    if (index < before.length) diffValues(before[index], after[index], [...at, index], diff)
    else updated(diff, [...at, index], after[index])
  }
}

function updated(diff: Diff, at: Path, value: unknown): void {
  diff.updatedFields[dotted(at)] = value
  diff.paths.push(at)
}

function dotted(path: Path): string {
  return path.join('.')
}

/** The paths a dotted name does not tell apart: an array index or a numeric field name, or a name with a dot. */
function disambiguatedPathsOf(paths: Path[]): Document {
  const found: Document = {}
  for (const path of paths) {
    const ambiguous = path.some((part) => typeof part === 'number' || /^\d+$/.test(part) || part.includes('.'))
    if (ambiguous) found[dotted(path)] = path
  }
  return found
}
