import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { invalidBody, invalidQuery, notCreated, notDeleted, notReplaced, notUpdated } from '../errors.js'
import { type ListQueryString, listQuerySchema, queryIssueMessage } from '../query/list-query.js'
import { bodyWithoutId } from '../routes/body-id.js'
import { writeOrExplain } from '../routes/create.js'
import { parseListQuery } from '../routes/list.js'
import { replaceRules } from '../routes/replace.js'
import type { RouterContext } from '../routes/router-context.js'
import { checkCreateInScope, fillFromScope, scopedWrite } from '../routes/scoped-write.js'
import { type ListPresenter, STREAM_ABOVE } from '../routes/serve-list.js'
import { DROP } from '../schema/fit-document.js'
import { toValidationIssues } from '../schema/validation-issues.js'
import type { WireDoc } from '../store/store.js'
import type { CrudService, ServiceListQuery } from './crud-service.js'

type Checked = { value: unknown } | { error: Error & { validation?: Parameters<typeof toValidationIssues>[1], validationMore?: number } }

/**
 * The router's operations without HTTP, made of the functions its routes call (scope, scoped writes,
 * the store's refusals, the presenter of the list route) and checked by its own validator: each
 * operation below is its route's handler, with the request's path, query and body as arguments.
 */
export function buildCrudService(name: string, context: RouterContext, presenter: ListPresenter, compile: FastifySchemaCompiler<TSchema>): CrudService {
  const { store } = context
  const { identifierField } = context.options
  const { keepOnReplace, replaced } = replaceRules(context)
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
  const showOne = async (doc: WireDoc, request: FastifyRequest) => show(await context.present(doc, { request }), request) ?? {}

  const service = {
    name,
    async list({ request, query = {} }: { request: FastifyRequest, query?: ServiceListQuery }) {
      const parsed = await parseListQuery(context, request, validQuery(query))
      let docs: WireDoc[]
      if (parsed.limit !== undefined && parsed.limit <= STREAM_ABOVE) docs = await store.find(parsed)
      else {
        docs = []
        for await (const doc of store.list(parsed)) docs.push(doc)
      }
      const shown = presenter.populate === undefined ? docs : await presenter.populate(docs, { request })
      return shown.flatMap((doc) => show(doc, request) ?? [])
    },
    async get({ request, id }: { request: FastifyRequest, id: string }) {
      const filter = await context.itemFilter(request, id)
      const doc = filter === undefined ? undefined : await store.findOne(filter)
      if (doc === undefined) throw context.notFound()
      return showOne(doc, request)
    },
    async create({ request, body }: { request: FastifyRequest, body: unknown }) {
      const input = structuredClone(body)
      await fillFromScope(context, request, input)
      const doc = validBody(checkBody, input)
      await checkCreateInScope(context, request, doc)
      return showOne(await writeOrExplain(() => store.insert(doc), notCreated), request)
    },
    async replace({ request, id, body }: { request: FastifyRequest, id: string, body: unknown }) {
      const doc = bodyWithoutId(validBody(checkBody, structuredClone(body)), id, identifierField)
      const filter = await context.itemFilter(request, id)
      if (filter === undefined) throw notReplaced()
      const written = await scopedWrite(context, request, filter, { after: doc, isKnown: replaced }, (guarded) =>
        writeOrExplain(() => store.replace(guarded, doc, keepOnReplace), notReplaced), notReplaced)
      return showOne(written, request)
    },
    async update({ request, id, body }: { request: FastifyRequest, id: string, body: unknown }) {
      const changes = bodyWithoutId(validBody(checkPatch, structuredClone(body)), id, identifierField)
      const filter = await context.itemFilter(request, id)
      if (filter === undefined) throw notUpdated()
      const written = await scopedWrite(context, request, filter, { after: changes, isKnown: (field) => Object.hasOwn(changes, field) }, (guarded) =>
        writeOrExplain(() => store.update(guarded, { set: changes }), notUpdated), notUpdated)
      return showOne(written, request)
    },
    async delete({ request, id }: { request: FastifyRequest, id: string }) {
      const filter = await context.itemFilter(request, id)
      if (filter === undefined || !(await store.remove(filter))) throw notDeleted()
    },
  }
  return service as unknown as CrudService
}
