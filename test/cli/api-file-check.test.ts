import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, buildApiApp, parseApiFile, verifyApiFile } from 'fastify-mongo-crud/api-file'
import { serveApi } from '../../packages/fastify-mongo-crud/src/cli/serve-api.ts'
import { locate } from './locate.ts'

/** A valid file; each test breaks it. */
const base = () => ({
  models: {
    Note: {
      type: 'object',
      properties: { title: { type: 'string' }, rank: { type: 'integer' }, secret: { type: 'string' } },
      required: ['title'],
    } as Record<string, unknown>,
    Tag: { type: 'object', properties: { label: { type: 'string' } } } as Record<string, unknown>,
  } as Record<string, Record<string, unknown>>,
  routers: {
    notes: { prefix: '/notes', collection: 'notes', model: 'Note', hidden: ['secret'] } as Record<string, unknown>,
    tags: { prefix: '/tags', collection: 'tags', model: 'Tag' } as Record<string, unknown>,
  },
})
const text = (file: unknown) => JSON.stringify(file, null, 2)

/** What `check` reports on a text, as `line:column message (pointer)`, in file order; [] when it passes. */
async function checkIssues(source: string): Promise<string[]> {
  try {
    await verifyApiFile(source, 'api.json')
  } catch (error) {
    assert.ok(error instanceof ApiFileError, String(error))
    return error.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message} (${issue.pointer})`)
  }
  return []
}

/** What `serve` reports on a text: the file's checks, then the app's registration on a real database. */
async function serveIssues(source: string): Promise<string[]> {
  const db = await openEmbedded()
  try {
    const app = await buildApiApp(parseApiFile(source, 'api.json'), db, { fastify: { logger: false } })
    await app.close()
  } catch (error) {
    assert.ok(error instanceof ApiFileError, String(error))
    return error.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message} (${issue.pointer})`)
  } finally {
    await db.close()
  }
  return []
}

/** What registration alone refuses (a defaultSort on no sortable field): `check` finds it by registering the routers. */
const SORT_MISSPELT = `CRUDRouter: 'defaultSort.field' "rnak" is not a sortable field (see 'sortable': id, title, rank): did you mean 'rank'? (FMC_ERR_OPTIONS_INVALID)`
/** A defaultSort on a field the output model hides (`hidden: ['secret']`): found with the other field names, before registration. */
const SORT_HIDDEN = `'defaultSort.field' "secret" is hidden by the output model: a filter or an order on it would reveal its values (the output model shows: id, title, rank)`

describe('check runs every check serve runs, and reports every problem of a file in one run', () => {
  it('a file with three mistakes: three messages, each at its line and column, in file order', async () => {
    const file = base()
    file.routers['notes']!['indexes'] = [{ key: { titel: 1 } }]
    file.routers['notes']!['defaultSort'] = { field: 'rnak' }
    file.routers['tags']!['limits'] = { maxLimit: '10' }
    const t = text(file)
    assert.deepEqual(await checkIssues(t), [
      `${locate(t, '"titel"')} 'indexes[0]'.key names 'titel', which is not '_id' or a field of the model (title, rank, secret): did you mean 'title'? (/routers/notes/indexes/0/key/titel)`,
      `${locate(t, '"rnak"', locate(t, '"defaultSort"'))} ${SORT_MISSPELT} (/routers/notes/defaultSort/field)`,
      `${locate(t, '"10"')} 'maxLimit' must be integer (/routers/tags/limits/maxLimit)`,
    ])
    await assert.rejects(verifyApiFile(t, 'api.json'), (error: Error) => {
      assert.equal(error.message.split('\n')[0], 'api.json: 3 errors')
      return true
    })
  })

  it('three mistakes in one router, one for each step (schema, fields, registration): three messages', async () => {
    const file = base()
    file.routers['notes']!['indexes'] = [{ key: { titel: 1 } }]
    file.routers['notes']!['defaultSort'] = { field: 'rnak' }
    file.routers['notes']!['limits'] = { maxLimit: 0 }
    const t = text(file)
    assert.deepEqual(await checkIssues(t), [
      `${locate(t, '"titel"')} 'indexes[0]'.key names 'titel', which is not '_id' or a field of the model (title, rank, secret): did you mean 'title'? (/routers/notes/indexes/0/key/titel)`,
      `${locate(t, '"rnak"', locate(t, '"defaultSort"'))} ${SORT_MISSPELT} (/routers/notes/defaultSort/field)`,
      `${locate(t, '0', locate(t, '"maxLimit"'))} 'maxLimit' must be >= 1 (/routers/notes/limits/maxLimit)`,
    ])
  })

  it('an index on a misspelt field: refused by check where serve refuses it, at the field name', async () => {
    const file = base()
    file.routers['tags']!['indexes'] = [{ key: { lable: 1 }, unique: true }]
    const t = text(file)
    const expected = [`${locate(t, '"lable"')} 'indexes[0]'.key names 'lable', which is not '_id' or a field of the model (label): did you mean 'label'? (/routers/tags/indexes/0/key/lable)`]
    assert.deepEqual(await checkIssues(t), expected)
    assert.deepEqual(await serveIssues(t), expected)
  })

  it('a defaultSort on a hidden field: refused by check as serve refuses it, at the field', async () => {
    const file = base()
    file.routers['notes']!['defaultSort'] = { field: 'secret', direction: -1 }
    const t = text(file)
    const expected = [`${locate(t, '"secret"', locate(t, '"defaultSort"'))} ${SORT_HIDDEN} (/routers/notes/defaultSort/field)`]
    assert.deepEqual(await checkIssues(t), expected)
    assert.deepEqual(await serveIssues(t), expected)
  })

  it('a sortable, filterable or defaultSort field the output model hides: every one reported at its place, by check as by serve', async () => {
    const file = base()
    file.routers['notes']!['sortable'] = ['rank', 'secret']
    file.routers['notes']!['filterable'] = ['secret', 'title']
    file.models['Tag']!['properties'] = { label: { type: 'string' }, internalNotes: { type: 'string' } }
    file.models['TagOut'] = { type: 'object', properties: { label: { type: 'string' } } }
    file.routers['tags']!['modelOut'] = 'TagOut'
    file.routers['tags']!['defaultSort'] = { field: 'internalNotes' }
    const t = text(file)
    const hidden = (option: string, field: string, shown: string) => `'${option}' names '${field}', which is hidden by the output model: a filter or an order on it would reveal its values (the output model shows: ${shown})`
    const expected = [
      `${locate(t, '"secret"', locate(t, '"sortable"'))} ${hidden('sortable[1]', 'secret', 'id, title, rank')} (/routers/notes/sortable/1)`,
      `${locate(t, '"secret"', locate(t, '"filterable"'))} ${hidden('filterable[0]', 'secret', 'id, title, rank')} (/routers/notes/filterable/0)`,
      `${locate(t, '"internalNotes"', locate(t, '"defaultSort"'))} 'defaultSort.field' "internalNotes" is hidden by the output model: a filter or an order on it would reveal its values (the output model shows: id, label) (/routers/tags/defaultSort/field)`,
    ]
    assert.deepEqual(await checkIssues(t), expected)
    assert.deepEqual(await serveIssues(t), expected)
  })

  it('a hidden sub-field (found at registration, against the shapes of both models), at its place', async () => {
    const file = base()
    file.models['Note']!['properties'] = { title: { type: 'string' }, meta: { type: 'object', properties: { shown: { type: 'string' }, secret: { type: 'string' } } } }
    file.models['NoteOut'] = { type: 'object', properties: { title: { type: 'string' }, meta: { type: 'object', properties: { shown: { type: 'string' } } } } }
    file.routers['notes'] = { prefix: '/notes', collection: 'notes', model: 'Note', modelOut: 'NoteOut', sortable: ['title', 'meta.secret'] }
    const t = text(file)
    const expected = [
      `${locate(t, '"meta.secret"')} CRUDRouter: 'sortable[1]' names 'meta.secret', which is hidden by the output model: a filter or an order on it would reveal its values (the output model shows: meta.shown) (FMC_ERR_OPTIONS_INVALID) (/routers/notes/sortable/1)`,
    ]
    assert.deepEqual(await checkIssues(t), expected)
    assert.deepEqual(await serveIssues(t), expected)
  })

  it("what only registration refuses, router by router: every router's refusal in one run", async () => {
    const file = base()
    file.routers['notes']!['defaultSort'] = { field: 'rnak' }
    file.models['TagOut'] = { type: 'object', properties: { lable: { type: 'string' } } }
    file.routers['tags']!['modelOut'] = 'TagOut'
    const t = text(file)
    const issues = await checkIssues(t)
    assert.equal(issues.length, 2, issues.join('\n'))
    assert.equal(issues[0], `${locate(t, '"rnak"', locate(t, '"defaultSort"'))} ${SORT_MISSPELT} (/routers/notes/defaultSort/field)`)
    assert.ok(issues[1]!.startsWith(`${locate(t, '"TagOut"', locate(t, '"/tags"'))} CRUDRouter '/tags': modelOut TagOut does not fit the model Tag`), issues[1])
    assert.match(issues[1]!, /\(FMC_ERR_OPTIONS_INVALID\) \(\/routers\/tags\/modelOut\)$/)
  })

  it('a sortable or filterable entry naming no field, and an identifierField the model lacks', async () => {
    const file = base()
    file.routers['notes']!['sortable'] = ['rank', 'rnak.x']
    file.routers['notes']!['filterable'] = ['id', 'title']
    file.routers['tags']!['identifierField'] = 'slug'
    const t = text(file)
    assert.deepEqual(await checkIssues(t), [
      `${locate(t, '"rnak.x"')} 'sortable[1]' names 'rnak.x', which is not 'id' or a field of the output model (title, rank): did you mean 'rank.x'? (/routers/notes/sortable/1)`,
      `${locate(t, '"slug"')} 'identifierField' must be '_id' or a top-level field of the model (label), received "slug" (/routers/tags/identifierField)`,
    ])
  })

  it('a misspelt key is one message, with the key it misspells, and hides none of the router\'s other mistakes', async () => {
    const file = base()
    delete file.routers['notes']!['collection']
    file.routers['notes']!['colection'] = 'notes'
    file.routers['notes']!['sortable'] = ['titel']
    file.routers['tags']!['model'] = 'Tga'
    const t = text(file)
    assert.deepEqual(await checkIssues(t), [
      `${locate(t, '"colection"')} unknown key 'colection' in 'notes': did you mean 'collection'? (/routers/notes/colection)`,
      `${locate(t, '"titel"')} 'sortable[0]' names 'titel', which is not 'id' or a field of the output model (title, rank): did you mean 'title'? (/routers/notes/sortable/0)`,
      `${locate(t, '"Tga"')} unknown model 'Tga' (models: Note, Tag): did you mean 'Tag'? (/routers/tags/model)`,
    ])
  })

  it('a misspelt keyword in a model hides no misspelt field name of a router using it', async () => {
    const file = base()
    file.models['Note']!['properties'] = { title: { type: 'string', minLenght: 1 }, rank: { type: 'integer' }, secret: { type: 'string' } }
    file.routers['notes']!['hidden'] = ['secrte']
    file.routers['notes']!['filterable'] = ['titel']
    const t = text(file)
    assert.deepEqual(await checkIssues(t), [
      `${locate(t, '"minLenght"')} unknown key 'minLenght' in 'title': did you mean 'minLength'? (/models/Note/properties/title/minLenght)`,
      `${locate(t, '"secrte"')} hidden field 'secrte' is not a field of model 'Note': did you mean 'secret'? (/routers/notes/hidden/0)`,
      `${locate(t, '"titel"')} 'filterable[0]' names 'titel', which is not 'id' or a field of the model (title, rank, secret): did you mean 'title'? (/routers/notes/filterable/0)`,
    ])
  })

  it('a misspelt route name, scope field, security scheme or sortable field (found at registration): each with the closest name, all in one run', async () => {
    const file = { ...base(), openapi: { securitySchemes: { userId: { type: 'apiKey', in: 'header', name: 'x-user' } } } }
    file.routers['notes']!['disable'] = ['deleteone']
    file.routers['notes']!['scope'] = { field: 'titel', header: 'x-user', securityScheme: 'userid' }
    file.routers['tags']!['defaultSort'] = { field: 'lable' }
    const t = text(file)
    assert.deepEqual(await checkIssues(t), [
      `${locate(t, '"deleteone"')} '0' must be one of "getAll", "getOne", "createOne", "replaceOne", "updateOne", "deleteOne", "batch", "groups", "events": did you mean 'deleteOne'? (/routers/notes/disable/0)`,
      `${locate(t, '"titel"')} scope field 'titel' is not a field of model 'Note' (title, rank, secret): did you mean 'title'? (/routers/notes/scope/field)`,
      `${locate(t, '"userid"')} unknown security scheme 'userid' (openapi.securitySchemes: userId): did you mean 'userId'? (/routers/notes/scope/securityScheme)`,
      `${locate(t, '"lable"')} CRUDRouter: 'defaultSort.field' "lable" is not a sortable field (see 'sortable': id, label): did you mean 'label'? (FMC_ERR_OPTIONS_INVALID) (/routers/tags/defaultSort/field)`,
    ])
  })

  it('a valid file and api.json pass; the command says OK and opens no database', async () => {
    assert.deepEqual(await checkIssues(text(base())), [])
    const example = await readFile(new URL('../../api.json', import.meta.url), 'utf8')
    assert.deepEqual(await checkIssues(example), [])
    const lines: string[] = []
    const path = new URL('../../api.json', import.meta.url).pathname
    await serveApi({ command: 'check', file: path, port: 0, host: '127.0.0.1', data: undefined }, {}, (line) => lines.push(line))
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /: OK, \d+ router\(s\), \d+ model\(s\)$/)
  })
})
