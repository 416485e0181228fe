import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { OBJECT_ID_HEX } from '../shapes/object-id.js'
import { BoundedErrorCollector } from './bounded-errors.js'
import { findForbiddenKey } from './forbidden-keys.js'
import { withoutNestedIds } from './nested-models.js'

/**
 * The router's own validator, so behaviour does not depend on how the host app configured Fastify:
 * bodies are checked strictly (no type coercion, unknown keys rejected, never silently dropped, which is
 * what Fastify's default `removeAdditional` would do); query strings and path parameters are coerced from
 * text, as they must be.
 *
 * A body is checked by a validator that stops at its first error, so a valid body costs one pass; only an
 * invalid one is described, up to a bounded number of issues (bounded-errors.ts).
 */
export function createValidatorCompiler(models: readonly TSchema[]): FastifySchemaCompiler<TSchema> {
  // Each Ajv is built when a schema of its kind is first compiled (at registration, by Fastify): a compiler
  // that only ever sees a header's schema (an API file's scope) builds one.
  let bodyAjv: Ajv | undefined
  let textAjv: Ajv | undefined
  const body = () => (bodyAjv ??= buildAjv(models, { coerce: false, allErrors: false }))
  const text = () => (textAjv ??= buildAjv(models, { coerce: true, allErrors: false }))
  // Only an invalid body is described: the Ajv that finds all errors is built for the first one. (Every
  // schema it compiles, `body` compiled first at registration: it cannot fail where `body` did not.)
  let collector: BoundedErrorCollector | undefined
  const describe = () => (collector ??= new BoundedErrorCollector(body(), buildAjv(models, { coerce: false, allErrors: true })))
  const caches = { body: new WeakMap<object, ValidateFunction>(), text: new WeakMap<object, ValidateFunction>() }
  return ({ schema, httpPart }) => {
    const [ajv, cache] = httpPart === 'body' ? [body(), caches.body] : [text(), caches.text]
    // A route schema naming a model inline would register the model's `$id` a second time.
    const own = withoutNestedIds(schema)
    let validate = cache.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(own)
      cache.set(schema, validate)
    }
    const check = validate
    if (httpPart !== 'body') return (data: unknown) => (check(data) ? { value: data } : { error: validationError(check.errors ?? []) })
    return (data: unknown) => {
      const forbidden = findForbiddenKey(data)
      if (forbidden !== undefined) return { error: validationError([forbidden]) }
      if (check(data)) return { value: data }
      const { errors, more } = describe().collect(own, data)
      return { error: validationError(errors.length > 0 ? errors : (check.errors ?? []), more) }
    }
  }
}

function buildAjv(models: readonly TSchema[], { coerce, allErrors }: { coerce: boolean, allErrors: boolean }): Ajv {
  const ajv = new Ajv({
    allErrors,
    coerceTypes: coerce,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
  })
  addFormats.default(ajv)
  ajv.addFormat('objectid', OBJECT_ID_HEX)
  for (const model of models) {
    const id = (model as { $id?: string }).$id
    if (id !== undefined && ajv.getSchema(id) === undefined) ajv.addSchema(withoutNestedIds(model))
  }
  return ajv
}

/**
 * Fastify passes `validation` on to the error handler, which shapes the 422 body; `validationMore` counts
 * the failing locations left out of `validation`.
 */
function validationError(errors: ErrorObject[], more = 0): Error & { validation: ErrorObject[], validationMore: number } {
  return Object.assign(new Error('Validation failed'), { validation: errors, validationMore: more })
}
