import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { invalidBody, invalidQuery, } from '../errors.js'
import { type ListQueryString, listQuerySchema, queryIssueMessage } from '../query/list-query.js'
import type { Resource } from '../resources/resource.js'
import type { RouterContext } from '../routes/router-context.js'
import { fillFromScope, } from '../routes/scoped-write.js'
import { STREAM_ABOVE } from '../routes/serve-list.js'
import { DROP } from '../schema/fit-document.js'
import { toValidationIssues } from '../schema/validation-issues.js'
import type { WireDoc } from '../store/store.js'
import type { CrudService, ServiceListQuery } from './crud-service.js'

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
  const checkBody = checker(context.refs.body, 'body')
  const checkPatch = checker(context.refs.patch, 'body')

  /** A copy of `body` (the validator fills in defaults), valid for the model or refused as the route refuses it. */
  function validBody(check: (data: unknown) => Checked, body: unknown): WireDoc {
    const result = check(body)
    if ('error' in result) throw invalidBody(toValidationIssues('body', result.error.validation ?? [], result.error.validationMore))
    return result.value as WireDoc
  }
  function validQuery(query: ServiceListQuery): ListQueryString {
    const text = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined).map(([key, value]) => [key, typeof value === 'object' ? JSON.stringify(value) : value]))
    const result = checkQuery(text)
    if ('error' in result) {
      const first = result.error.validation?.[0]
      throw invalidQuery(queryIssueMessage(String(first?.instancePath.split('/')[1] ?? 'query'), first?.keyword))
    }
    return result.value as ListQueryString
  }
  /** A stored document as the routes answer it: fitted to the output model, serialized (hidden fields gone). */
  function show(doc: WireDoc, request: FastifyRequest): WireDoc | undefined {
    const fitted = presenter.fit(doc, request)
    return fitted === DROP ? undefined : (JSON.parse(presenter.serialize(fitted)) as WireDoc)
  }
  const showOne = async (doc: WireDoc, request: FastifyRequest) => show(await resource.present(doc, { request }), request) ?? {}
  const none = {}

  const service = {
    name,
    async list({ request, query = {} }: { request: FastifyRequest, query?: ServiceListQuery }) {
      const { query: parsed, source } = await resource.list({ request }, validQuery(query))
      let docs: WireDoc[]
      if (parsed.limit !== undefined && parsed.limit <= STREAM_ABOVE) docs = await source.find(parsed)
      else {
        docs = []
        for await (const doc of source.list(parsed)) docs.push(doc)
      }
      const shown = presenter.populate === undefined ? docs : await presenter.populate(docs, { request })
      return shown.flatMap((doc) => show(doc, request) ?? [])
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
