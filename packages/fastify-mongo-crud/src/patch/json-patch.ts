import type { Operation } from 'rfc6902'
import { Pointer } from 'rfc6902'
import { apply, type InvalidOperationError, type MissingError, type TestError } from 'rfc6902/patch.js'
import { HTTPException, invalidBody } from '../errors.js'

/** One operation of a JSON Patch, as the request carries it (its shape checked by JSON_PATCH_SCHEMA). */
interface PatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'
  readonly path: string
  readonly from?: string
  readonly value?: unknown
}

/**
 * The fields an RFC 6902 JSON Patch names (`path`, and `from` of move and copy), as token lists; a
 * malformed operation (a pointer that is not one, a missing `value` or `from`) is the request's 422.
 */
export function jsonPatchPaths(patch: readonly PatchOperation[]): string[][] {
  return patch.flatMap((operation, index) => {
    if ((operation.op === 'add' || operation.op === 'replace' || operation.op === 'test') && !Object.hasOwn(operation, 'value')) {
      throw invalidBody([{ loc: ['body', index, 'value'], msg: `A "${operation.op}" operation needs a value`, type: 'missing' }])
    }
    if ((operation.op === 'move' || operation.op === 'copy') && typeof operation.from !== 'string') {
      throw invalidBody([{ loc: ['body', index, 'from'], msg: `A "${operation.op}" operation needs a from`, type: 'missing' }])
    }
    const pointers = operation.from === undefined ? [['path', operation.path]] : [['path', operation.path], ['from', operation.from]]
    return pointers.map(([member, text]) => tokensOf(text!, index, member!))
  })
}

function tokensOf(text: string, index: number, member: string): string[] {
  if (text !== '' && !text.startsWith('/')) throw invalidBody([{ loc: ['body', index, member], msg: 'A JSON Pointer is empty or starts with "/"', type: 'value_error' }])
  return Pointer.fromJSON(text).tokens.slice(1)
}

/**
 * Applies the operations to a copy of `target`, in order, stopping at the first that fails: all of
 * the patch or nothing. A failed `test`, or a location the document does not have (remove, replace,
 * move, copy, an add under a missing parent, an array index past its end) is 409 Conflict: the patch
 * does not fit the document as it is. The operation's index is in the `loc` of the answer.
 */
export function applyJsonPatch(target: Record<string, unknown>, patch: readonly PatchOperation[]): Record<string, unknown> {
  const document = structuredClone(target)
  patch.forEach((operation, index) => {
    const failed = apply(document, operation as Operation)
    if (failed === null) return
    throw conflict(index, operation, failed)
  })
  return document
}

/**
 * rfc6902's errors are told apart by `name`: its classes, compiled for ES5, build plain `Error`
 * objects (so `instanceof TestError` is false).
 */
function conflict(index: number, operation: PatchOperation, failed: MissingError | TestError | InvalidOperationError): HTTPException {
  if (failed.name === 'TestError') {
    return new HTTPException(409, [{ loc: ['body', index], msg: `test failed: ${operation.path} is not the value the operation names`, type: 'patch_test_failed' }], 'FMC_ERR_PATCH_CONFLICT')
  }
  if (failed.name === 'MissingError') {
    return new HTTPException(409, [{ loc: ['body', index], msg: `${(failed as MissingError).path} is not a location of the document`, type: 'patch_path_missing' }], 'FMC_ERR_PATCH_CONFLICT')
  }
  return invalidBody([{ loc: ['body', index, 'op'], msg: `"${operation.op}" is not an operation of JSON Patch`, type: 'value_error' }])
}
