import type { ApiFile, JsonSchemaObject } from './api-file.js'
import type { ApiFileIssue } from './api-file-error.js'
import { checkDataApi } from './check-data-api.js'
import { checkModelSchema } from './check-model-schema.js'
import { ModelUseChecks } from './check-model-uses.js'
import { checkRouter } from './check-router.js'
import { SecuritySchemeChecks } from './check-security-schemes.js'
import { checkServerKeys } from './check-server-keys.js'
import { issueReporter } from './issue-reporter.js'
import { escapePointer, type Located } from './parse-json-positions.js'
import { NOTHING_REFUSED, type RefusedParts, routerToCheck } from './refused-parts.js'

/**
 * What the JSON Schema cannot say about a file that matches it: names that must refer to something
 * (a model, a router, a field of the model), and choices that exclude each other. Each issue points at
 * the value at fault. The parts the JSON Schema refused (`refused`) are left out: a router is checked
 * without its keys at fault, even when it lacks a required key.
 */
export function checkApiFile(file: ApiFile, positions: ReadonlyMap<string, Located>, refused: RefusedParts = NOTHING_REFUSED): ApiFileIssue[] {
  const issues: ApiFileIssue[] = []
  if (refused.all) return issues
  const report = issueReporter(positions, issues)
  const schemes = new SecuritySchemeChecks(file, positions, report, refused.top)
  schemes.requirements(file)
  for (const [name, model] of Object.entries(file.models)) {
    if (!refused.models.has(name)) checkModelSchema(model as unknown as JsonSchemaObject, `/models/${escapePointer(name)}`, report)
  }
  const uses = new ModelUseChecks(file, positions, report, refused.models)
  for (const [name, declared] of Object.entries(file.routers)) {
    const router = routerToCheck(name, declared, refused)
    if (router !== undefined) checkRouter(name, router, { file, uses, schemes, report })
  }
  checkServerKeys(file, refused.top, report)
  checkDataApi(file, refused.top, report)
  const database = refused.top.has('database') ? undefined : file.database
  if (database?.engine === 'mongodb' && database.path !== undefined) report('/database/path', `'path' applies to the embedded engine only`)
  if (database?.engine === 'embedded' && database.name !== undefined) report('/database/name', `'name' applies to MongoDB only`)
  if (database?.engine === 'mongodb' && database.changeRetention !== undefined) report('/database/changeRetention', `'changeRetention' applies to the embedded engine only`)
  return issues
}
