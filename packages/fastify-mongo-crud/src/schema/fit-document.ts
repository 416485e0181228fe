import type { TSchema } from 'typebox'
import { DROP, type Fit, type FitContext, type JsonSchema, keep } from './fit.js'
import { anyOfFit } from './fit-any-of.js'
import { createBranchValidator } from './fit-branch-validator.js'
import { declaredTypeFit } from './fit-declared-type.js'

// What a fit is and why documents are fitted: fit.ts. The fits of each kind of schema: fit-*.ts.
export { DROP, type Fit, type FitIssue } from './fit.js'

/**
 * Compiles fits for schemas that may `$ref` the named models in `models`. `anyOf` branches are chosen
 * the way the serializer chooses them (Ajv, without `required`), so a fitted value always serializes.
 */
export function createFitCompiler(models: readonly TSchema[]): (schema: TSchema) => Fit {
  const refs = new Map<string, JsonSchema>()
  for (const model of models) {
    const id = (model as { $id?: string }).$id
    if (id !== undefined) refs.set(id, model as JsonSchema)
  }
  const compiled = new WeakMap<object, Fit>()
  const context: FitContext = { compile, validator: createBranchValidator(refs) }

  function compile(schema: JsonSchema): Fit {
    const known = compiled.get(schema)
    if (known !== undefined) return known
    // Recursive models: the entry is in place before its children compile.
    let fit: Fit = () => DROP
    const lazy: Fit = (value, issues) => fit(value, issues)
    compiled.set(schema, lazy)
    fit = buildFit(schema, refs, context)
    // Later users call the fit directly; only recursive references go through `lazy`.
    compiled.set(schema, fit)
    return fit
  }

  return (schema) => compile(schema as JsonSchema)
}

function buildFit(schema: JsonSchema, refs: ReadonlyMap<string, JsonSchema>, context: FitContext): Fit {
  const ref = schema['$ref']
  if (typeof ref === 'string') {
    const target = refs.get(ref.replace(/#$/, ''))
    return target === undefined ? keep : context.compile(target)
  }
  const variants = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined
  if (Array.isArray(variants)) return anyOfFit(variants, context)
  return declaredTypeFit(schema, context)
}
