import { didYouMean } from '../did-you-mean.js'
import { isRecord } from '../is-record.js'
import { localFieldProblem } from '../options/check-local-field.js'
import { routerFieldProblems } from '../options/router-field-problems.js'
import type { ApiFile, JsonSchemaObject, RouterDeclaration } from './api-file.js'
import type { ModelUseChecks } from './check-model-uses.js'
import type { SecuritySchemeChecks } from './check-security-schemes.js'
import { filePathOf } from './file-router-keys.js'
import type { Report } from './issue-reporter.js'
import { escapePointer } from './parse-json-positions.js'

/** What checking a router needs besides the router: the whole file, and the checks shared across routers. */
interface RouterCheckContext {
  readonly file: ApiFile
  readonly uses: ModelUseChecks
  readonly schemes: SecuritySchemeChecks
  readonly report: Report
}

type Fields = Record<string, JsonSchemaObject>

/** What one router names: models, fields of its model, security schemes, and its relations' targets. */
export function checkRouter(name: string, router: RouterDeclaration, context: RouterCheckContext): void {
  const { uses, schemes, report } = context
  const pointer = `/routers/${escapePointer(name)}`
  const fields = uses.check(router, pointer)
  schemes.guards(router.guards, pointer)
  if (router.scope !== undefined) schemes.check(router.scope, `${pointer}/scope`)
  if (fields !== undefined) checkFields(router, fields, { schemas: uses.knowsSchemasOf(router.model), shown: shownFields(context.file, router, fields) }, pointer, report)
  checkPopulates(name, router, fields, pointer, context)
  router.lookups?.forEach((lookup, index) => {
    const at = `${pointer}/lookups/${index}`
    const childFields = uses.check(lookup, at)
    schemes.guards(lookup.guards, at)
    if (childFields !== undefined && !Object.hasOwn(childFields, lookup.foreignField)) {
      report(`${at}/foreignField`, `foreign field '${lookup.foreignField}' is not a field of model '${lookup.model}'${didYouMean(lookup.foreignField, Object.keys(childFields))}`)
    }
    if (fields !== undefined && uses.knowsSchemasOf(router.model)) checkLocalField(context.file, router, fields, lookup.localField ?? '_id', `${at}/localField`, report)
  })
  router.embeds?.forEach((embed, index) => {
    const at = `${pointer}/embeds/${index}`
    uses.check(embed, at)
    schemes.guards(embed.guards, at)
    if (embed.disable?.includes('replaceOne')) report(`${at}/disable`, `embedded items have no PUT route: 'replaceOne' does not apply`)
    if (embed.guards?.replaceOne !== undefined) report(`${at}/guards/replaceOne`, `embedded items have no PUT route: 'replaceOne' does not apply`)
  })
}

/**
 * The top-level fields the router's output model shows: its `modelOut`'s, or its model's without `hidden`;
 * undefined when it has neither (all are shown), or its `modelOut` is unknown (reported elsewhere).
 */
function shownFields(file: ApiFile, router: RouterDeclaration, fields: Fields): string[] | undefined {
  if (router.modelOut !== undefined) {
    const properties = file.models[router.modelOut]?.properties
    return isRecord(properties) ? Object.keys(properties) : undefined
  }
  return router.hidden === undefined ? undefined : Object.keys(fields).filter((field) => !router.hidden!.includes(field))
}

/**
 * The options that name fields of the model (the router's own check, router-field-problems.ts: those
 * clients name must be fields the output model `shown`), and the scope field: its type only when the
 * model's field schemas are known (`schemas`).
 */
function checkFields(router: RouterDeclaration, fields: Fields, known: { schemas: boolean, shown: readonly string[] | undefined }, pointer: string, report: Report): void {
  const { schemas, shown } = known
  for (const problem of routerFieldProblems({ ...router, fields: Object.keys(fields), shown })) {
    report(`${pointer}${filePathOf(problem.path).map((segment) => `/${escapePointer(segment)}`).join('')}`, problem.message, problem.onKey)
  }
  const scope = router.scope
  if (scope === undefined) return
  const field = fields[scope.field]
  if (field === undefined) {
    report(`${pointer}/scope/field`, `scope field '${scope.field}' is not a field of model '${router.model}' (${Object.keys(fields).join(', ')})${didYouMean(scope.field, Object.keys(fields))}`)
  } else if (schemas && field['type'] !== 'string') {
    report(`${pointer}/scope/field`, `scope field '${scope.field}' must be a string field (${scope.claim === undefined ? 'header values are strings' : 'the claim must be a string'})`)
  }
}

function checkPopulates(name: string, router: RouterDeclaration, fields: Fields | undefined, pointer: string, { file, report }: RouterCheckContext): void {
  router.populates?.forEach((populate, index) => {
    const at = `${pointer}/populates/${index}`
    if (fields !== undefined && !Object.hasOwn(fields, populate.field)) report(`${at}/field`, `populated field '${populate.field}' is not a field of model '${router.model}'${didYouMean(populate.field, Object.keys(fields))}`)
    if (!Object.hasOwn(file.routers, populate.router)) {
      const routers = Object.keys(file.routers)
      report(`${at}/router`, `unknown router '${populate.router}' (routers: ${routers.join(', ')})${didYouMean(populate.router, routers)}`)
    } else if (populate.router === name) {
      report(`${at}/router`, `a router cannot populate from itself`)
    }
  })
}

/** A lookup's `localField`: a field of the parent's model, and a safe link (what registration would refuse, in its words). */
function checkLocalField(file: ApiFile, router: RouterDeclaration, fields: Fields, local: string, pointer: string, report: Report): void {
  if (local !== '_id' && !Object.hasOwn(fields, local)) {
    report(pointer, `local field '${local}' is not '_id' or a field of model '${router.model}'${didYouMean(local, ['_id', ...Object.keys(fields)])}`)
    return
  }
  const required = file.models[router.model]?.required ?? []
  const problem = localFieldProblem({ localField: local, identifierField: router.identifierField ?? '_id', indexes: router.indexes ?? [], model: router.model, required })
  if (problem !== undefined) report(pointer, problem)
}
