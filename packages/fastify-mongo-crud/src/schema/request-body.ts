import type { MongoModelSchema } from '../models.js'
import { refTo } from './partial-model.js'

/**
 * The schema of a create or replace body: what a client has to send. A field with a `default` is not
 * required there, since the validator fills it in (`useDefaults`); answers keep it required.
 *
 * A model with no such field is the body as it is, by reference to its component. One with them is
 * written inline, as a copy whose `required` leaves them out: client generators such as
 * openapi-typescript (by default) type a component's defaulted fields as always present, which is true
 * of answers, and type those of a request body written in place as optional. Validating the copy is
 * validating the model: the validator fills a missing defaulted field before anything reads it.
 */
export function requestBody(model: MongoModelSchema): object {
  const properties = model.properties as Record<string, { default?: unknown } | undefined>
  const required = (model as { required?: string[] }).required ?? []
  const filled = required.filter((name) => properties[name] !== undefined && Object.hasOwn(properties[name], 'default'))
  if (filled.length === 0) return refTo(model)
  const { $id: _named, required: _all, ...body } = model as MongoModelSchema & { required?: string[] }
  const sent = required.filter((name) => !filled.includes(name))
  return sent.length === 0 ? body : { ...body, required: sent }
}

/** Whether `requestBody` writes the model's body in place (so the body does not name its component). */
export const isInlineBody = (body: object): boolean => !('$ref' in body)
