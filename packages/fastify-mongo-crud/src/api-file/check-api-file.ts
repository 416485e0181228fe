import { localFieldProblem } from '../relations/check-local-field.js'
import type { ApiFile, Guards, JsonSchemaObject, ModelUse, RouterDeclaration } from './api-file.js'
import type { ApiFileIssue } from './api-file-error.js'
import { escapePointer, type Located } from './parse-json-positions.js'
import { derivedSchemeName } from './to-openapi-options.js'

/**
 * What the JSON Schema cannot say about a file that matches it: names that must refer to something
 * (a model, a router, a field of the model), and choices that exclude each other. Each issue points at
 * the value at fault.
 */
export function checkApiFile(file: ApiFile, positions: ReadonlyMap<string, Located>): ApiFileIssue[] {
  const issues: ApiFileIssue[] = []
  const report = (pointer: string, message: string, onKey = false) => {
    const located = positions.get(pointer)
    const position = (onKey ? located?.key : undefined) ?? located?.value ?? { line: 1, column: 1 }
    issues.push({ line: position.line, column: position.column, pointer, message })
  }
  const schemes = Object.keys(file.openapi?.securitySchemes ?? {})
  /** A scheme named by a guard, a scope or a security requirement is one `openapi.securitySchemes` declares. */
  const checkScheme = (name: string | undefined, pointer: string, onKey = false) => {
    if (name !== undefined && !schemes.includes(name)) report(pointer, `unknown security scheme '${name}' (openapi.securitySchemes: ${schemes.join(', ') || 'none'})`, onKey)
  }
  /**
   * A header check that names no scheme gets one named after its header (to-openapi-options.ts). Two
   * headers that get one name would share one scheme, which documents only the first header.
   */
  const derived = new Map<string, { header: string, pointer: string }>()
  const checkDerivedScheme = (access: { header: string, securityScheme?: string | undefined }, pointer: string) => {
    if (access.securityScheme !== undefined) return
    const name = derivedSchemeName(access.header)
    // A scheme the file declares under that name documents them all, as the file says.
    if (schemes.includes(name)) return
    const header = access.header.toLowerCase()
    const first = derived.get(name)
    if (first === undefined) derived.set(name, { header, pointer: `${pointer}/header` })
    else if (first.header !== header) {
      const line = positions.get(first.pointer)?.value.line
      report(`${pointer}/header`, `header '${access.header}' and header '${first.header}' (line ${line}) both get the security scheme name '${name}': name one with 'securityScheme'`)
    }
  }
  const checkGuards = (guards: Guards | undefined, pointer: string) => {
    for (const [route, list] of Object.entries(guards ?? {})) {
      list.forEach((guard, index) => {
        checkScheme(guard.securityScheme, `${pointer}/guards/${route}/${index}/securityScheme`)
        checkDerivedScheme(guard, `${pointer}/guards/${route}/${index}`)
      })
    }
  }
  file.openapi?.security?.forEach((requirement, index) => {
    for (const name of Object.keys(requirement)) checkScheme(name, `/openapi/security/${index}/${escapePointer(name)}`, true)
  })
  const models = Object.keys(file.models)
  /** Each model is an input or an output model, not both: the first use decides. */
  const kinds = new Map<string, { kind: 'model' | 'modelOut', pointer: string }>()

  for (const [name, model] of Object.entries(file.models)) checkSchema(model as unknown as JsonSchemaObject, `/models/${escapePointer(name)}`, report)

  const checkUse = (use: ModelUse, pointer: string): Record<string, JsonSchemaObject> | undefined => {
    const fieldsOf = (kind: 'model' | 'modelOut'): Record<string, JsonSchemaObject> | undefined => {
      const name = use[kind]
      if (name === undefined) return undefined
      const declared = file.models[name]
      if (declared === undefined) {
        report(`${pointer}/${kind}`, `unknown model '${name}' (models: ${models.join(', ') || 'none'})`)
        return undefined
      }
      const known = kinds.get(name)
      if (known === undefined) kinds.set(name, { kind, pointer: `${pointer}/${kind}` })
      else if (known.kind !== kind) {
        const line = positions.get(known.pointer)?.value.line
        report(`${pointer}/${kind}`, `model '${name}' is used as ${known.kind === 'model' ? 'an input' : 'an output'} model on line ${line}: a model is either an input or an output model (declare a second one)`)
      }
      return declared.properties
    }
    const fields = fieldsOf('model')
    fieldsOf('modelOut')
    if (use.modelOut !== undefined && use.hidden !== undefined) report(`${pointer}/hidden`, `give either 'modelOut' or 'hidden', not both`)
    use.hidden?.forEach((field, index) => {
      if (fields !== undefined && !Object.hasOwn(fields, field)) report(`${pointer}/hidden/${index}`, `hidden field '${field}' is not a field of model '${use.model}'`)
    })
    return fields
  }

  for (const [name, router] of Object.entries(file.routers)) {
    const pointer = `/routers/${escapePointer(name)}`
    const fields = checkUse(router, pointer)
    checkGuards(router.guards, pointer)
    checkScheme(router.scope?.securityScheme, `${pointer}/scope/securityScheme`)
    if (router.scope !== undefined) checkDerivedScheme(router.scope, `${pointer}/scope`)
    if (fields !== undefined) checkRouterFields(router, fields, pointer, report)
    router.populates?.forEach((populate, index) => {
      const at = `${pointer}/populates/${index}`
      if (fields !== undefined && !Object.hasOwn(fields, populate.field)) report(`${at}/field`, `populated field '${populate.field}' is not a field of model '${router.model}'`)
      if (!Object.hasOwn(file.routers, populate.router)) {
        report(`${at}/router`, `unknown router '${populate.router}' (routers: ${Object.keys(file.routers).join(', ')})`)
      } else if (populate.router === name) {
        report(`${at}/router`, `a router cannot populate from itself`)
      }
    })
    router.lookups?.forEach((lookup, index) => {
      const at = `${pointer}/lookups/${index}`
      const childFields = checkUse(lookup, at)
      checkGuards(lookup.guards, at)
      if (childFields !== undefined && !Object.hasOwn(childFields, lookup.foreignField)) {
        report(`${at}/foreignField`, `foreign field '${lookup.foreignField}' is not a field of model '${lookup.model}'`)
      }
      if (fields !== undefined) checkLocalField(file, router, fields, lookup.localField ?? '_id', `${at}/localField`, report)
    })
    router.embeds?.forEach((embed, index) => {
      const at = `${pointer}/embeds/${index}`
      checkUse(embed, at)
      checkGuards(embed.guards, at)
      if (embed.disable?.includes('replaceOne')) report(`${at}/disable`, `embedded items have no PUT route: 'replaceOne' does not apply`)
      if (embed.guards?.replaceOne !== undefined) report(`${at}/guards/replaceOne`, `embedded items have no PUT route: 'replaceOne' does not apply`)
    })
  }

  const database = file.database
  if (database?.engine === 'mongodb' && database.path !== undefined) report('/database/path', `'path' applies to the embedded engine only`)
  if (database?.engine === 'embedded' && database.name !== undefined) report('/database/name', `'name' applies to MongoDB only`)
  return issues
}

function checkRouterFields(router: RouterDeclaration, fields: Record<string, JsonSchemaObject>, pointer: string, report: (pointer: string, message: string) => void) {
  const identifier = router.identifierField
  if (identifier !== undefined && identifier !== '_id' && !Object.hasOwn(fields, identifier)) {
    report(`${pointer}/identifierField`, `identifier field '${identifier}' is not '_id' or a field of model '${router.model}'`)
  }
  const scope = router.scope
  if (scope !== undefined) {
    const field = fields[scope.field]
    if (field === undefined) report(`${pointer}/scope/field`, `scope field '${scope.field}' is not a field of model '${router.model}'`)
    else if (field['type'] !== 'string') report(`${pointer}/scope/field`, `scope field '${scope.field}' must be a string field (header values are strings)`)
  }
}

/** A lookup's `localField`: a field of the parent's model, and a safe link (what registration would refuse, in its words). */
function checkLocalField(
  file: ApiFile,
  router: RouterDeclaration,
  fields: Record<string, JsonSchemaObject>,
  local: string,
  pointer: string,
  report: (pointer: string, message: string) => void
) {
  if (local !== '_id' && !Object.hasOwn(fields, local)) {
    report(pointer, `local field '${local}' is not '_id' or a field of model '${router.model}'`)
    return
  }
  const required = file.models[router.model]?.required ?? []
  const problem = localFieldProblem({ localField: local, identifierField: router.identifierField ?? '_id', indexes: router.indexes ?? [], model: router.model, required })
  if (problem !== undefined) report(pointer, problem)
}

/** Requirements that name undeclared fields, and patterns that are not regular expressions, anywhere in a model. */
function checkSchema(schema: JsonSchemaObject, pointer: string, report: (pointer: string, message: string) => void) {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchemaObject>
  const required = schema['required']
  if (Array.isArray(required)) {
    required.forEach((name: string, index) => {
      if (!Object.hasOwn(properties, name)) report(`${pointer}/required/${index}`, `required field '${name}' is not declared in 'properties'`)
    })
  }
  const pattern = schema['pattern']
  if (typeof pattern === 'string') {
    try {
      new RegExp(pattern, 'u')
    } catch (error) {
      report(`${pointer}/pattern`, `pattern is not a valid regular expression: ${(error as Error).message}`)
    }
  }
  for (const [name, sub] of Object.entries(properties)) checkSchema(sub, `${pointer}/properties/${escapePointer(name)}`, report)
  if (typeof schema['items'] === 'object') checkSchema(schema['items'] as JsonSchemaObject, `${pointer}/items`, report)
  if (typeof schema['additionalProperties'] === 'object') checkSchema(schema['additionalProperties'] as JsonSchemaObject, `${pointer}/additionalProperties`, report)
  const anyOf = schema['anyOf']
  if (Array.isArray(anyOf)) {
    anyOf.forEach((sub: JsonSchemaObject, index) => {
      checkSchema(sub, `${pointer}/anyOf/${index}`, report)
    })
  }
}
