import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'
import { isRecord } from '../is-record.js'

/** A validation answer lists at most this many issues, then says how many more there are. */
export const MAX_ISSUES = 20

/** The first errors of an invalid value (at most MAX_ISSUES locations), and how many more locations fail. */
interface BoundedErrors {
  errors: ErrorObject[]
  more: number
}

type SchemaNode = Record<string, unknown>

/**
 * Ajv with `allErrors` builds one error object per failing element and cannot stop at N: a 1 MB body
 * holding a 520,000-element array of wrong types cost seconds, most of a gigabyte and a 48 MB answer.
 * This walks the schema and the data together instead, checking each part with a validator that stops
 * at its first error (cheap, nothing allocated when the part is valid), and describes in full only the
 * failing parts met before the cap: items of arrays and fields of objects one by one, anything else
 * (unions, records, scalars) whole. Past the cap, failing parts are only counted.
 */
export class BoundedErrorCollector {
  readonly #first: Ajv
  readonly #all: Ajv
  readonly #firstCache = new WeakMap<object, ValidateFunction>()
  readonly #allCache = new WeakMap<object, ValidateFunction>()
  readonly #shells = new WeakMap<object, SchemaNode>()

  /** `first` stops at the first error (`allErrors: false`), `all` does not; both know the same models. */
  constructor(first: Ajv, all: Ajv) {
    this.#first = first
    this.#all = all
  }

  /** Nothing found (or a part Ajv cannot compile alone) leaves the caller with its first-error answer. */
  collect(schema: object, data: unknown): BoundedErrors {
    const sink = new Sink()
    try {
      this.#walk(schema as SchemaNode, data, '', sink)
    } catch {
      return { errors: [], more: 0 }
    }
    return { errors: sink.errors, more: sink.more }
  }

  #walk(schema: SchemaNode, data: unknown, path: string, sink: Sink): void {
    if (this.#check(this.#first, this.#firstCache, schema, data)) return
    const node = this.#resolve(schema)
    if (isDescendableArray(node) && Array.isArray(data)) {
      this.#shell(node, { items: true }, data, path, sink)
      for (let i = 0; i < data.length; i++) this.#walk(node['items'] as SchemaNode, data[i], `${path}/${i}`, sink)
      return
    }
    if (isDescendableObject(node) && isRecord(data)) {
      const properties = node['properties'] as Record<string, SchemaNode>
      this.#shell(node, { properties: Object.fromEntries(Object.keys(properties).map((key) => [key, true])), additionalProperties: true }, data, path, sink)
      for (const key of Object.keys(data)) {
        const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
        const property = properties[key]
        if (property !== undefined) this.#walk(property, data[key], at, sink)
        else if (node['additionalProperties'] === false) {
          sink.add([{ instancePath: path, schemaPath: '#/additionalProperties', keyword: 'additionalProperties', params: { additionalProperty: key }, message: 'must NOT have additional properties' }])
        }
      }
      return
    }
    this.#leaf(schema, data, path, sink)
  }

  /** Checks the keywords of an array or object other than its items and fields (required, minItems...). */
  #shell(node: SchemaNode, opened: SchemaNode, data: unknown, path: string, sink: Sink): void {
    let shell = this.#shells.get(node)
    if (shell === undefined) {
      const { $id: _named, ...rest } = node
      shell = { ...rest, ...opened }
      this.#shells.set(node, shell)
    }
    if (!this.#check(this.#first, this.#firstCache, shell, data)) this.#leaf(shell, data, path, sink)
  }

  #leaf(schema: SchemaNode, data: unknown, path: string, sink: Sink): void {
    if (sink.full) {
      sink.more++
      return
    }
    const validate = this.#compiled(this.#all, this.#allCache, schema)
    if (validate(data)) return
    sink.add((validate.errors ?? []).map((error) => ({ ...error, instancePath: path + error.instancePath })))
  }

  #check(ajv: Ajv, cache: WeakMap<object, ValidateFunction>, schema: SchemaNode, data: unknown): boolean {
    return this.#compiled(ajv, cache, schema)(data) as boolean
  }

  #compiled(ajv: Ajv, cache: WeakMap<object, ValidateFunction>, schema: SchemaNode): ValidateFunction {
    let validate = cache.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(schema)
      cache.set(schema, validate)
    }
    return validate
  }

  /** A bare `{ $ref }` (a route's body, a model's field) stands for the schema it names. */
  #resolve(schema: SchemaNode): SchemaNode {
    const ref = schema['$ref']
    if (typeof ref !== 'string' || Object.keys(schema).length !== 1) return schema
    const target = this.#first.getSchema(ref)?.schema
    return typeof target === 'object' && target !== null ? this.#resolve(target as SchemaNode) : schema
  }
}

/** Collects errors up to MAX_ISSUES distinct locations, then only counts. */
class Sink {
  readonly errors: ErrorObject[] = []
  readonly #locations = new Set<string>()
  more = 0

  get full(): boolean {
    return this.#locations.size >= MAX_ISSUES
  }

  add(errors: ErrorObject[]): void {
    for (const error of errors) {
      const location = `${error.instancePath}\u0000${String(error.params['missingProperty'] ?? error.params['additionalProperty'] ?? '')}`
      if (this.#locations.has(location)) this.errors.push(error)
      else if (this.full) this.more++
      else {
        this.#locations.add(location)
        this.errors.push(error)
      }
    }
  }
}

/** An array whose items all follow one schema: its items can be checked one by one. */
function isDescendableArray(node: SchemaNode): boolean {
  const items = node['items']
  return node['type'] === 'array' && isRecord(items) && node['prefixItems'] === undefined
}

/** An object with named fields and nothing that relates fields to each other. */
function isDescendableObject(node: SchemaNode): boolean {
  if (node['type'] !== 'object' || typeof node['properties'] !== 'object' || node['properties'] === null) return false
  const additional = node['additionalProperties']
  if (additional !== undefined && typeof additional !== 'boolean') return false
  return ['patternProperties', 'dependentRequired', 'dependentSchemas', 'dependencies', 'propertyNames', 'unevaluatedProperties', 'if', 'allOf', 'anyOf', 'oneOf', 'not']
    .every((keyword) => node[keyword] === undefined)
}
