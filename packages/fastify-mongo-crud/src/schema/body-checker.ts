import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { invalidBody } from '../errors.js'
import type { WireDoc } from '../store/store.js'
import { toValidationIssues } from './validation-issues.js'

type Checked = { value: unknown } | { error: Error & { validation?: Parameters<typeof toValidationIssues>[1], validationMore?: number } }

/**
 * A body checked outside a route's own validation (the service API, each operation of a batch) by
 * the router's validator, as the route checks it: a valid copy (defaults filled in), or the route's
 * 422 with the same `detail`.
 */
export function bodyChecker(compile: FastifySchemaCompiler<TSchema>, schema: object, url: string): (body: unknown) => WireDoc {
  const check = compile({ schema: schema as TSchema, httpPart: 'body', method: 'POST', url }) as (data: unknown) => Checked
  return (body) => {
    const result = check(body)
    if ('error' in result) throw invalidBody(toValidationIssues('body', result.error.validation ?? [], result.error.validationMore))
    return result.value as WireDoc
  }
}
