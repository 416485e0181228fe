import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { OBJECT_ID_HEX } from '../shapes/object-id.js'
import type { JsonSchema } from './fit.js'
import { withoutNestedIds } from './nested-models.js'
import { withoutRequired } from './without-required.js'

/**
 * The checks that choose an `anyOf` branch the way the serializer chooses it: Ajv, with the named
 * models (`refs`) known and `required` left out. Ajv is built on the first check, so models without
 * an `anyOf` never pay for it.
 */
export function createBranchValidator(refs: ReadonlyMap<string, JsonSchema>): (schema: JsonSchema) => ValidateFunction {
  let ajv: Ajv | undefined
  return (schema) => {
    if (ajv === undefined) {
      ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true })
      addFormats.default(ajv)
      ajv.addFormat('objectid', OBJECT_ID_HEX)
      for (const [id, model] of refs) if (ajv.getSchema(id) === undefined) ajv.addSchema(withoutRequired(withoutNestedIds(model)) as object)
    }
    // A branch that is itself a named model (nested in another) is already known by its id.
    const id = schema['$id']
    const known = typeof id === 'string' ? ajv.getSchema(id) : undefined
    // Nested models go anonymous, as in the serializer: each is known by its own root, if named at all.
    return known ?? ajv.compile(withoutRequired(withoutNestedIds(schema)) as object)
  }
}
