import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import type { RouterContext } from '../core/router-context.js'
import { fillFromScope, } from '../core/scoped-write.js'
import { STREAM_ABOVE } from '../core/serve-list.js'
import { invalidQuery } from '../errors.js'
import { type GroupsQueryString, groupsQuerySchema } from '../query/group-query.js'
import { type ListQueryString, listQuerySchema, queryIssueDetail } from '../query/list-query.js'
import type { Resource } from '../resources/resource.js'
import { shownDocument } from '../resources/shown-document.js'
import { bodyChecker } from '../schema/body-checker.js'
import { DROP } from '../schema/fit-document.js'
import type { toValidationIssues } from '../schema/validation-issues.js'
import type { WireDoc } from '../store/store.js'
import type { CrudService, ServiceGroupsQuery, ServiceListQuery } from './crud-service.js'

type Checked = { value: unknown } | { error: Error & { validation?: Parameters<typeof toValidationIssues>[1], validationMore?: number } }

/**
 * The router's operations without HTTP: the collection's resource (resources/collection-resource.ts)
 * that its routes run, checked by the router's own validator, with the request's path, query and body
 * as arguments and no HTTP preconditions or headers.
 */
export function buildCrudService(name: string, context: RouterContext, resource: Resource, compile: FastifySchemaCompiler<TSchema>): CrudService {
  const { presenter } = resource
  const checker = (schema: object, httpPart: 'body' | 'querystring') => compile({ schema: schema as TSchema, httpPart, method: 'POST', url: `service:${name}` }) as (data: unknown) => Checked
  const checkQuery = checker(listQuerySchema, 'querystring')
  const checkGroupsQuery = checker(groupsQuerySchema, 'querystring')
  const checkBody = bodyChecker(compile, context.refs.body, `service:${name}`)
  const checkPatch = bodyChecker(compile, context.refs.patch, `service:${name}`)
  const validBody = (check: (body: unknown) => WireDoc, body: unknown) => check(body)
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
  /** A stored document as the routes answer it: fitted to the output model, serialized (hidden fields gone). */
  function show(doc: WireDoc, request: FastifyRequest): WireDoc | undefined {
    const fitted = presenter.fit(doc, request)
    return fitted === DROP ? undefined : (JSON.parse(presenter.serialize(fitted)) as WireDoc)
  }
  const showOne = async (doc: WireDoc, request: FastifyRequest) => (await shownDocument(resource, doc, { request })) ?? {}
  const none = {}

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
      return showOne(await resource.get({ request }, id, resource.selectFields(request, fields)), request)
    },
    async create({ request, body }: { request: FastifyRequest, body: unknown }) {
      const input = structuredClone(body)
      await fillFromScope(context, request, input)
      return showOne(await resource.create({ request }, validBody(checkBody, input), none), request)
    },
    async replace({ request, id, body }: { request: FastifyRequest, id: string, body: unknown }) {
      const input = structuredClone(body)
      await fillFromScope(context, request, input)
      return showOne(await resource.replace!({ request }, id, validBody(checkBody, input), none), request)
    },
    async update({ request, id, body }: { request: FastifyRequest, id: string, body: unknown }) {
      return showOne(await resource.update({ request }, id, validBody(checkPatch, structuredClone(body)), none), request)
    },
    async delete({ request, id }: { request: FastifyRequest, id: string }) {
      await resource.delete({ request }, id, none)
    },
  }
  return service as unknown as CrudService
}
