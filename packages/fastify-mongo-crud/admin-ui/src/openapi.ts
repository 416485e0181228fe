// The routers of the app, as its OpenAPI document describes them: the page knows nothing else about the API.
import { type Schema, setComponents } from './schema.js'

interface Parameter {
  name: string
  in: string
  schema?: Schema
}
interface Operation {
  summary?: string
  tags?: string[]
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, { schema?: Schema }> }
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>
}
type PathItem = Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>
export interface OpenApiDocument {
  info?: { title?: string }
  paths?: Record<string, PathItem>
  components?: { schemas?: Record<string, Schema> }
}

export interface RouterInfo {
  prefix: string
  label: string
  /** `/users/{id}`, and the field its parameter names (`id`, or the router's identifier field). */
  itemPath?: string
  itemParam: string
  /** The output model (what lists and GET one answer). */
  outSchema: Schema
  /** What a create sends; undefined without POST. */
  createSchema?: Schema
  /** What a PATCH in application/json sends; undefined without PATCH. */
  patchSchema?: Schema
  canDelete: boolean
  /** `sort_by`'s enum. */
  sortable: string[]
  /** The `filters` parameter's `x-filterable`; undefined when the list takes no filters. */
  filterable?: string[]
  maxLimit?: number
  events: boolean
  batch: boolean
  groups?: { by: string[], metrics: string[] }
}

const jsonSchemaOf = (content?: Record<string, { schema?: Schema }>): Schema | undefined => content?.['application/json']?.schema

const enumOf = (parameter: Parameter | undefined): string[] => {
  const schema = parameter?.schema
  const values = (schema?.['type'] === 'array' ? (schema['items'] as Schema | undefined)?.['enum'] : schema?.['enum']) as unknown
  return Array.isArray(values) ? values.map(String) : []
}

/** A list route: a GET without path parameters answering an array, with the list's paging parameters. */
function isList(path: string, item: PathItem): boolean {
  const names = new Set((item.get?.parameters ?? []).map((parameter) => parameter.name))
  return !path.includes('{') && !/\/_(events|groups|batch)$/.test(path) && names.has('limit') && names.has('cursor')
}

function routerOf(paths: Record<string, PathItem>, prefix: string): RouterInfo {
  const list = paths[prefix]!
  const parameters = list.get?.parameters ?? []
  const parameter = (name: string) => parameters.find((candidate) => candidate.name === name)
  const listSchema = jsonSchemaOf(list.get?.responses?.['200']?.content)
  const itemPath = Object.keys(paths).find((path) => path.startsWith(`${prefix}/{`) && /^\/\{[^/}]+\}$/.test(path.slice(prefix.length)))
  const item = itemPath === undefined ? undefined : paths[itemPath]
  const groups = paths[`${prefix}/_groups`]?.get?.parameters
  const filterable = parameter('filters')?.schema?.['x-filterable']
  const maxLimit = parameter('limit')?.schema?.['maximum']
  return {
    prefix,
    label: list.get?.summary?.replace(/^List /, '') ?? prefix,
    ...(itemPath === undefined ? {} : { itemPath }),
    itemParam: itemPath === undefined ? 'id' : itemPath.slice(prefix.length + 2, -1),
    outSchema: (listSchema?.['items'] as Schema | undefined) ?? {},
    ...(list.post === undefined ? {} : { createSchema: jsonSchemaOf(list.post.requestBody?.content) ?? {} }),
    ...(item?.patch === undefined ? {} : { patchSchema: jsonSchemaOf(item.patch.requestBody?.content) ?? {} }),
    canDelete: item?.delete !== undefined,
    sortable: enumOf(parameter('sort_by')),
    ...(Array.isArray(filterable) ? { filterable: filterable.map(String) } : {}),
    ...(typeof maxLimit === 'number' ? { maxLimit } : {}),
    events: paths[`${prefix}/_events`]?.get !== undefined,
    batch: paths[`${prefix}/_batch`]?.post !== undefined,
    ...(groups === undefined ? {} : { groups: { by: enumOf(groups.find((p) => p.name === 'by')), metrics: enumOf(groups.find((p) => p.name === 'metrics')) } }),
  }
}

/** Every router of the document (a list route of its own, not a lookup's children), in the document's order. */
export function routersOf(document: OpenApiDocument): RouterInfo[] {
  setComponents(document.components?.schemas)
  const paths = document.paths ?? {}
  return Object.keys(paths)
    .filter((path) => isList(path, paths[path]!))
    .map((prefix) => routerOf(paths, prefix))
}
