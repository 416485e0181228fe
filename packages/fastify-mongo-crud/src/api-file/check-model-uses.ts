import { didYouMean } from '../did-you-mean.js'
import { isRecord } from '../is-record.js'
import type { ApiFile, JsonSchemaObject, ModelUse } from './api-file.js'
import type { Report } from './issue-reporter.js'
import type { Located } from './parse-json-positions.js'

type Fields = Record<string, JsonSchemaObject>

/**
 * The models a router, a lookup or an embed names: models the file declares, each used as an input or
 * as an output model, not both (the first use decides); `hidden` names fields of the model, and
 * replaces a `modelOut`.
 */
export class ModelUseChecks {
  readonly #file: ApiFile
  readonly #positions: ReadonlyMap<string, Located>
  readonly #report: Report
  /**
   * Models the JSON Schema refused: their problems are reported; of their fields only the names are
   * known (a misspelt keyword in a model must not hide a misspelt field name in a router using it).
   */
  readonly #broken: ReadonlySet<string>
  readonly #kinds = new Map<string, { kind: 'model' | 'modelOut', pointer: string }>()

  constructor(file: ApiFile, positions: ReadonlyMap<string, Located>, report: Report, broken: ReadonlySet<string>) {
    this.#file = file
    this.#positions = positions
    this.#report = report
    this.#broken = broken
  }

  /** Checks a use of models; answers the fields of its input model, when known. */
  check(use: ModelUse, pointer: string): Fields | undefined {
    const fields = this.#fieldsOf(use, 'model', pointer)
    this.#fieldsOf(use, 'modelOut', pointer)
    if (use.modelOut !== undefined && use.hidden !== undefined) this.#report(`${pointer}/hidden`, `give either 'modelOut' or 'hidden', not both`)
    use.hidden?.forEach((field, index) => {
      if (fields !== undefined && !Object.hasOwn(fields, field)) this.#report(`${pointer}/hidden/${index}`, `hidden field '${field}' is not a field of model '${use.model}'${didYouMean(field, Object.keys(fields))}`)
    })
    return fields
  }

  /** Whether the schemas of the fields of `model` are known (not only their names): the JSON Schema accepted the model. */
  knowsSchemasOf(model: string | undefined): boolean {
    return model !== undefined && !this.#broken.has(model)
  }

  #fieldsOf(use: ModelUse, kind: 'model' | 'modelOut', pointer: string): Fields | undefined {
    const name = use[kind]
    if (name === undefined) return undefined
    const declared = this.#file.models[name]
    if (declared === undefined) {
      const models = Object.keys(this.#file.models)
      this.#report(`${pointer}/${kind}`, `unknown model '${name}' (models: ${models.join(', ') || 'none'})${didYouMean(name, models)}`)
      return undefined
    }
    const known = this.#kinds.get(name)
    if (known === undefined) this.#kinds.set(name, { kind, pointer: `${pointer}/${kind}` })
    else if (known.kind !== kind) {
      const line = this.#positions.get(known.pointer)?.value.line
      this.#report(
        `${pointer}/${kind}`,
        `model '${name}' is used as ${known.kind === 'model' ? 'an input' : 'an output'} model on line ${line}: a model is either an input or an output model (declare a second one)`
      )
    }
    if (!this.#broken.has(name)) return declared.properties
    return isRecord(declared) && isRecord(declared.properties) ? declared.properties : undefined
  }
}
