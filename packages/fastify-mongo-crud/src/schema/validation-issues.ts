import type { ErrorObject } from 'ajv'
import type { ValidationIssue } from '../errors.js'
import { OBJECT_ID_PATTERN } from '../shapes/object-id.js'
import { MAX_ISSUES } from './bounded-errors.js'

/**
 * Turns Ajv errors into FastAPI's `detail` items (`{ loc, msg, type }`), so clients written against
 * the Python original keep working. One item per offending location: a nullable field that fails
 * yields one "should be integer or null" item, not three Ajv errors.
 *
 * At most MAX_ISSUES items; past them, one last item `{ loc: [part], msg: "and N more errors",
 * type: "too_many_errors" }` counts the locations left out (`more` of them were never described).
 */
export function toValidationIssues(part: string, errors: readonly ErrorObject[], more = 0): ValidationIssue[] {
  const byPath = new Map<string, ErrorObject[]>()
  for (const error of errors) {
    const key = locationOf(error).join('\u0000')
    const group = byPath.get(key)
    if (group === undefined) byPath.set(key, [error])
    else group.push(error)
  }
  const issues: ValidationIssue[] = []
  for (const group of byPath.values()) {
    if (issues.length === MAX_ISSUES) break
    const first = group[0]!
    issues.push({ loc: [part, ...locationOf(first)], ...describe(group) })
  }
  const left = byPath.size - issues.length + more
  if (left > 0) issues.push({ loc: [part], msg: `and ${left} more error${left === 1 ? '' : 's'}`, type: 'too_many_errors' })
  return issues
}

function locationOf(error: ErrorObject): Array<string | number> {
  const path = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/').map(unescapePointer)
  const loc: Array<string | number> = path.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment))
  if (error.keyword === 'required') loc.push(String(error.params['missingProperty']))
  if (error.keyword === 'additionalProperties') loc.push(String(error.params['additionalProperty']))
  return loc
}

const unescapePointer = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~')

function describe(group: ErrorObject[]): { msg: string, type: string } {
  const first = group[0]!
  const types = group.filter((e) => e.keyword === 'type').map((e) => String(e.params['type']))
  if (group.some((e) => e.keyword === 'anyOf') && types.length > 0) {
    return { msg: `Input should be a valid ${types.join(' or ')}`, type: `${types[0]}_type` }
  }
  switch (first.keyword) {
    case 'required':
      return { msg: 'Field required', type: 'missing' }
    case 'forbiddenKey':
      return { msg: `Input ${first.message ?? 'has a forbidden key'}`, type: 'forbidden_key' }
    case 'finiteNumber':
      return { msg: 'Input should be a finite number', type: 'finite_number' }
    case 'wellFormedString':
      return { msg: 'Input should be a well-formed Unicode string (it has a lone surrogate)', type: 'string_unicode' }
    case 'additionalProperties':
      return { msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }
    case 'type':
      return { msg: `Input should be a valid ${first.params['type']}`, type: `${first.params['type']}_type` }
    case 'format':
    case 'pattern':
      if (group.some((e) => e.params['format'] === 'objectid') || first.params['pattern'] === OBJECT_ID_PATTERN) {
        return { msg: 'Input should be a valid ObjectId (24 hexadecimal characters)', type: 'objectid' }
      }
      return { msg: `Input ${first.message ?? 'is invalid'}`, type: `string_${first.keyword}_mismatch` }
    default:
      return { msg: `Input ${first.message ?? 'is invalid'}`, type: first.keyword }
  }
}
