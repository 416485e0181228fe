import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { STREAM_ABOVE } from '../core/serve-list.js'
import { dispatch, SERVICE_STEPS, type WriteOperation } from '../dispatch/dispatch.js'
import type { Endpoint } from '../dispatch/endpoint.js'
import { invalidQuery } from '../errors.js'
import { type GroupsQueryString, groupsQuerySchema } from '../query/group-query.js'
import { type ListQueryString, listQuerySchema, queryIssueDetail } from '../query/list-query.js'
import { presentedJson, shownDocument } from '../resources/shown-document.js'
import type { toValidationIssues } from '../schema/validation-issues.js'
import type { WireDoc } from '../store/store.js'
import type { CrudService, ServiceGroupsQuery, ServiceListQuery } from './crud-service.js'

type Checked = { value: unknown } | { error: Error & { validation?: Parameters<typeof toValidationIssues>[1], validationMore?: number } }

/**
 * The router's operations without HTTP: its writes go through the dispatch every channel takes
 * (dispatch/dispatch.ts: the scope's fill, the body checks of its routes, the resource's operation),
 * its reads to the collection's resource (resources/collection-resource.ts) its routes read, with the
 * request's path, query and body as arguments and no HTTP preconditions or headers.
 */
export function buildCrudService(name: string, endpoint: Endpoint, compile: FastifySchemaCompiler<TSchema>): CrudService {
  const { resource } = endpoint
  const { presenter } = resource
  const checker = (schema: object, httpPart: 'body' | 'querystring') => compile({ schema: schema as TSchema, httpPart, method: 'POST', url: `service:${name}` }) as (data: unknown) => Checked
  const checkQuery = checker(listQuerySchema, 'querystring')
  const checkGroupsQuery = checker(groupsQuerySchema, 'querystring')
  /** The query as a querystring would carry it (arrays comma-separated, a filter object as JSON), checked by the route's schema. */
  function validQuery<Q>(check: (data: unknown) => Checked, query: ServiceListQuery | ServiceGroupsQuery): Q {
    const asText = (value: unknown) => (Array.isArray(value) ? value.join(',') : typeof value === 'object' ? JSON.stringify(value) : value)
    const text = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined).map(([key, value]) => [key, asText(value)]))
    const result = check(text)
    if ('error' in result) {
      throw invalidQuery(queryIssueDetail(result.error.validation?.[0]))
    }
    return result.value as Q
  }
  /** A presented document as the routes answer it: fitted to the output model, serialized (hidden fields gone), as a value. */
  function show(doc: WireDoc, request: FastifyRequest): WireDoc | undefined {
    const json = presentedJson(presenter, doc, request)
    return json === undefined ? undefined : (JSON.parse(json) as WireDoc)
  }
  const showOne = async (doc: WireDoc | undefined, request: FastifyRequest) => (doc === undefined ? {} : ((await shownDocument(resource, doc, { request })) ?? {}))
  const write = async (request: FastifyRequest, operation: WriteOperation) => (await dispatch(endpoint, operation, { request }, SERVICE_STEPS)).doc

  const service = {
    name,
    async list({ request, query = {} }: { request: FastifyRequest, query?: ServiceListQuery }) {
      const { query: parsed, source } = await resource.list({ request }, validQuery<ListQueryString>(checkQuery, query))
      let docs: WireDoc[]
      if (parsed.limit !== undefined && parsed.limit <= STREAM_ABOVE) docs = await source.find(parsed)
      else {
        docs = []
        for await (const doc of source.list(parsed)) docs.push(doc)
      }
      const shown = presenter.populate === undefined ? docs : await presenter.populate(docs, { request })
      return shown.flatMap((doc) => show(doc, request) ?? [])
    },
    groups({ request, query }: { request: FastifyRequest, query: ServiceGroupsQuery }) {
      return resource.groups({ request }, validQuery<GroupsQueryString>(checkGroupsQuery, query))
    },
    async get({ request, id, fields }: { request: FastifyRequest, id: string, fields?: string }) {
      return showOne(await resource.get({ request }, id, await resource.selectFields({ request }, fields)), request)
    },
    async create({ request, body }: { request: FastifyRequest, body: unknown }) {
      return showOne(await write(request, { op: 'create', body }), request)
    },
    async replace({ request, id, body }: { request: FastifyRequest, id: string, body: unknown }) {
      return showOne(await write(request, { op: 'replace', id, body }), request)
    },
    async update({ request, id, body }: { request: FastifyRequest, id: string, body: unknown }) {
      return showOne(await write(request, { op: 'update', id, body }), request)
    },
    async delete({ request, id }: { request: FastifyRequest, id: string }) {
      await write(request, { op: 'delete', id })
    },
  }
  return service as unknown as CrudService
}
