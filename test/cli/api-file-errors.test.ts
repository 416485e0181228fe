import assert from 'node:assert/strict'
import { readFile, realpath } from 'node:fs/promises'
import { describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { API_FILE_SCHEMA_URL, ApiFileError, type ApiFileIssue, buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { locate } from './locate.ts'

/** A valid file; each test breaks one thing in it. */
const base = () => ({
  models: {
    Note: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        owner: { type: 'string', format: 'objectid' },
        secret: { type: 'string' },
      },
      required: ['title', 'owner'],
    },
    Tag: { type: 'object', properties: { label: { type: 'string' } } },
  } as Record<string, Record<string, unknown>>,
  routers: {
    notes: {
      prefix: '/notes',
      collection: 'notes',
      model: 'Note',
      hidden: ['secret'],
      scope: { field: 'owner', header: 'x-user' },
    } as Record<string, unknown>,
    tags: { prefix: '/tags', collection: 'tags', model: 'Tag' } as Record<string, unknown>,
  },
})

/** The issues of a file, as `line:column message (pointer)`. */
function issuesOf(text: string): string[] {
  try {
    parseApiFile(text, 'api.json')
  } catch (error) {
    assert.ok(error instanceof ApiFileError, String(error))
    assert.match(error.message, /^api\.json: \d+ errors?\n/)
    return error.issues.map((issue: ApiFileIssue) => `${issue.line}:${issue.column} ${issue.message} (${issue.pointer})`)
  }
  return []
}
const text = (file: unknown) => JSON.stringify(file, null, 2)

describe('API file errors point at the line and column of the offending value', () => {
  it('a valid file has none', () => {
    assert.deepEqual(issuesOf(text(base())), [])
  })

  it('invalid JSON: where the parser stopped (a trailing comma, a duplicate key, an unterminated string)', () => {
    assert.deepEqual(issuesOf('{\n  "models": {},\n}'), [`3:1 invalid JSON: Expected a key in double quotes but found character "}" ()`])
    assert.deepEqual(issuesOf('{\n  "models": {},\n  "models": {}\n}'), [`3:3 invalid JSON: Duplicate key "models" ()`])
    assert.deepEqual(issuesOf('{ "title": "open'), [`1:12 invalid JSON: Unterminated string ()`])
    assert.deepEqual(issuesOf(''), [`1:1 invalid JSON: Unexpected end of file: expected a value ()`])
  })

  it('an unknown key, at the key: the allowed key it misspells, else the keys allowed there', () => {
    const file = base()
    file.routers['notes']!['colection'] = 'x'
    file.routers['tags']!['owner'] = 'x'
    const t = text(file)
    assert.deepEqual(issuesOf(t), [
      `${locate(t, '"colection"')} unknown key 'colection' in 'notes': did you mean 'collection'? (/routers/notes/colection)`,
      `${locate(t, '"owner"', locate(t, '"/tags"'))} unknown key 'owner' in 'tags' (allowed: prefix, collection, model, modelOut, hidden, tags, name, singular, identifierField, indexes, filterable, sortable, defaultSort, notFoundStatus, disable, guards, scope, access, limits, populates, lookups, embeds) (/routers/tags/owner)`,
    ])
  })

  it('a value of the wrong type or outside its range, at the value', () => {
    const file = base()
    file.routers['tags']!['limits'] = { maxLimit: '10', defaultLimit: 0 }
    const t = text(file)
    assert.deepEqual(issuesOf(t), [
      `${locate(t, '"10"')} 'maxLimit' must be integer (/routers/tags/limits/maxLimit)`,
      `${locate(t, '0', locate(t, '"defaultLimit"'))} 'defaultLimit' must be >= 1 (/routers/tags/limits/defaultLimit)`,
    ])
  })

  it('JSON Schema beyond what models support is refused at its keyword (allOf, $ref, an open model, an unknown format)', () => {
    const file = base()
    file.models['Tag'] = {
      type: 'object',
      additionalProperties: true,
      properties: { label: { type: 'string', allOf: [] }, parent: { $ref: '#/x' }, when: { type: 'string', format: 'phone' } },
    }
    const t = text(file)
    assert.deepEqual(issuesOf(t).sort(), [
      `${locate(t, '"allOf"')} unknown key 'allOf' in 'label' (allowed: type, title, description, default, examples, enum, const, format, pattern, minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, items, minItems, maxItems, uniqueItems, properties, required, additionalProperties, anyOf) (/models/Tag/properties/label/allOf)`,
      `${locate(t, '"$ref"')} unknown key '$ref' in 'parent' (allowed: type, title, description, default, examples, enum, const, format, pattern, minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, items, minItems, maxItems, uniqueItems, properties, required, additionalProperties, anyOf) (/models/Tag/properties/parent/$ref)`,
      `${locate(t, 'true')} 'additionalProperties' must be false (/models/Tag/additionalProperties)`,
      `${locate(t, '"phone"')} 'format' must be one of "objectid", "date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uri", "uri-reference", "uuid", "regex" (/models/Tag/properties/when/format)`,
    ].sort())
  })

  it('a field named id, or a name that is not a plain identifier, at the name', () => {
    const file = base()
    file.models['Tag'] = { type: 'object', properties: { 'a.b': { type: 'string' } } }
    const t = text(file)
    assert.deepEqual(issuesOf(t), [`${locate(t, '"a.b"')} 'a.b' is not a valid name here: it must match ^[A-Za-z_][A-Za-z0-9_]*$ (/models/Tag/properties/a.b)`])
  })

  it('a type that is neither a type name nor a list of them: one issue saying what is expected', () => {
    const file = base()
    file.models['Tag'] = { type: 'object', properties: { label: { type: 'text' } } }
    const t = text(file)
    assert.deepEqual(issuesOf(t), [`${locate(t, '"text"')} 'type' is not valid: expected a type name, or a list of type names (/models/Tag/properties/label/type)`])
  })

  it('a relation to an unknown router, at the router name', () => {
    const file = base()
    file.models['Note']!['properties'] = { ...(file.models['Note']!['properties'] as object), tag: { type: 'string', format: 'objectid' } }
    file.routers['notes']!['populates'] = [{ field: 'tag', router: 'tagz' }]
    const t = text(file)
    assert.deepEqual(issuesOf(t), [`${locate(t, '"tagz"')} unknown router 'tagz' (routers: notes, tags): did you mean 'tags'? (/routers/notes/populates/0/router)`])
  })

  it('a scope header on a field the model lacks, or on a field that is not a string', () => {
    const file = base()
    file.routers['notes']!['scope'] = { field: 'ownerId', header: 'x-user' }
    file.models['Tag']!['properties'] = { label: { type: 'string' }, rank: { type: 'integer' } }
    file.routers['tags']!['scope'] = { field: 'rank', header: 'x-rank' }
    const t = text(file)
    assert.deepEqual(issuesOf(t), [
      `${locate(t, '"ownerId"')} scope field 'ownerId' is not a field of model 'Note' (title, owner, secret): did you mean 'owner'? (/routers/notes/scope/field)`,
      `${locate(t, '"rank"', locate(t, '"x-user"'))} scope field 'rank' must be a string field (header values are strings) (/routers/tags/scope/field)`,
    ])
  })

  it('a hidden field the model lacks, at the name; modelOut and hidden together', () => {
    const file = base()
    file.routers['notes']!['hidden'] = ['secret', 'pasword']
    file.routers['tags']!['modelOut'] = 'Tag'
    file.routers['tags']!['hidden'] = ['label']
    const t = text(file)
    assert.deepEqual(issuesOf(t).sort(), [
      `${locate(t, '"pasword"')} hidden field 'pasword' is not a field of model 'Note' (/routers/notes/hidden/1)`,
      `${locate(t, '[', locate(t, '"hidden"', locate(t, '"modelOut"')))} give either 'modelOut' or 'hidden', not both (/routers/tags/hidden)`,
      `${locate(t, '"Tag"', locate(t, '"modelOut"'))} model 'Tag' is used as an input model on line ${locate(t, '"Tag"', locate(t, '"/tags"')).split(':')[0]}: a model is either an input or an output model (declare a second one) (/routers/tags/modelOut)`,
    ].sort())
  })

  it('an unknown model, a required field not declared, a pattern that is not a regular expression, a foreign field the child lacks', () => {
    const file = base()
    file.routers['tags']!['model'] = 'Tags'
    file.models['Note']!['required'] = ['title', 'owner', 'body']
    file.models['Note']!['properties'] = { ...(file.models['Note']!['properties'] as object), code: { type: 'string', pattern: '([a-z]' } }
    file.routers['notes']!['lookups'] = [{ prefix: 'tags', collection: 'tags', model: 'Tag', foreignField: 'noteId' }]
    const t = text(file)
    assert.deepEqual(issuesOf(t).sort(), [
      `${locate(t, '"body"')} required field 'body' is not declared in 'properties' (/models/Note/required/2)`,
      `${locate(t, '"([a-z]"')} pattern is not a valid regular expression: Invalid regular expression: /([a-z]/u: Unterminated group (/models/Note/properties/code/pattern)`,
      `${locate(t, '"noteId"')} foreign field 'noteId' is not a field of model 'Tag' (/routers/notes/lookups/0/foreignField)`,
      `${locate(t, '"Tags"')} unknown model 'Tags' (models: Note, Tag): did you mean 'Tag'? (/routers/tags/model)`,
    ].sort())
  })

  it('an index or a sortable field the model lacks, at the name, in the words registration uses', () => {
    const file = base()
    file.routers['tags']!['indexes'] = [{ key: { label: 1, lable: -1 } }]
    file.routers['tags']!['sortable'] = ['label', 'lable']
    const t = text(file)
    assert.deepEqual(issuesOf(t), [
      `${locate(t, '"lable"')} 'indexes[0]'.key names 'lable', which is not '_id' or a field of the model (label): did you mean 'label'? (/routers/tags/indexes/0/key/lable)`,
      `${locate(t, '"lable"', locate(t, '"sortable"'))} 'sortable[1]' names 'lable', which is not 'id' or a field of the model (label): did you mean 'label'? (/routers/tags/sortable/1)`,
    ])
  })

  it('what the library refuses when the router registers is reported at the option its message names, with its code', async () => {
    const sorted = base()
    sorted.routers['tags']!['defaultSort'] = { field: 'lable' }
    const t = text(sorted)
    const outOfModel = base()
    outOfModel.models['TagOut'] = { type: 'object', properties: { lable: { type: 'string' } } }
    outOfModel.routers['tags']!['modelOut'] = 'TagOut'
    const u = text(outOfModel)
    const db = await openEmbedded()
    try {
      await assert.rejects(buildApiApp(parseApiFile(t, 'api.json'), db, { fastify: { logger: false } }), (error: Error) => {
        assert.ok(error instanceof ApiFileError)
        assert.deepEqual(error.issues.map((i) => `${i.line}:${i.column} ${i.pointer}`), [`${locate(t, '"lable"')} /routers/tags/defaultSort/field`])
        assert.match(error.issues[0]!.message, /'defaultSort.field' "lable" is not a sortable field \(see 'sortable': id, label\): did you mean 'label'\? \(FMC_ERR_OPTIONS_INVALID\)$/)
        return true
      })
      await assert.rejects(buildApiApp(parseApiFile(u, 'api.json'), db, { fastify: { logger: false } }), (error: Error) => {
        assert.ok(error instanceof ApiFileError)
        assert.deepEqual(error.issues.map((i) => `${i.line}:${i.column} ${i.pointer}`), [`${locate(u, '"TagOut"', locate(u, '"/tags"'))} /routers/tags/modelOut`])
        assert.match(error.issues[0]!.message, /modelOut TagOut does not fit the model Tag: 'lable' is not a field of the model: did you mean 'label'\?/)
        return true
      })
    } finally {
      await db.close()
    }
  })

  it('a securityScheme that openapi.securitySchemes does not declare, on a guard, a child guard or the scope, at the name; in openapi.security, at the key', () => {
    const file = base() as ReturnType<typeof base> & { openapi?: unknown }
    file.openapi = { securitySchemes: { adminRole: { type: 'apiKey', in: 'header', name: 'x-role' } }, security: [{ bearer: [] }] }
    file.routers['notes']!['scope'] = { field: 'owner', header: 'x-user', securityScheme: 'userID' }
    file.routers['notes']!['lookups'] = [{ prefix: 'tags', collection: 'tags', model: 'Tag2', foreignField: 'label', guards: { getAll: [{ header: 'x-role', equals: 'admin', securityScheme: 'admins' }] } }]
    file.models['Tag2'] = { type: 'object', properties: { label: { type: 'string' } } }
    file.routers['tags']!['guards'] = { deleteOne: [{ header: 'x-role', equals: 'admin', securityScheme: 'adminRole' }, { header: 'x-key', equals: 'k', securityScheme: 'apiKey' }] }
    const t = text(file)
    const known = '(openapi.securitySchemes: adminRole)'
    assert.deepEqual(issuesOf(t).sort(), [
      `${locate(t, '"bearer"')} unknown security scheme 'bearer' ${known} (/openapi/security/0/bearer)`,
      `${locate(t, '"userID"')} unknown security scheme 'userID' ${known} (/routers/notes/scope/securityScheme)`,
      `${locate(t, '"admins"')} unknown security scheme 'admins' ${known} (/routers/notes/lookups/0/guards/getAll/0/securityScheme)`,
      `${locate(t, '"apiKey"', locate(t, '"x-key"'))} unknown security scheme 'apiKey' ${known} (/routers/tags/guards/deleteOne/1/securityScheme)`,
    ].sort())
    const u = text({ ...base(), routers: { tags: { prefix: '/tags', collection: 'tags', model: 'Tag', guards: { getAll: [{ header: 'x-role', equals: 'a', securityScheme: 'adminRole' }] } } } })
    assert.deepEqual(issuesOf(u), [`${locate(u, '"adminRole"')} unknown security scheme 'adminRole' (openapi.securitySchemes: none) (/routers/tags/guards/getAll/0/securityScheme)`])
  })

  it('two headers whose derived security scheme names collide (x!a and x_a), at the second header; the same header twice, in any case, is one scheme', () => {
    const file = base()
    file.routers['tags']!['guards'] = { getAll: [{ header: 'x_a', equals: 'a' }], deleteOne: [{ header: 'X-Role', equals: 'r' }, { header: 'x-role', equals: 'r' }, { header: 'x!a', equals: 'b' }] }
    const t = text(file)
    assert.deepEqual(issuesOf(t), [
      `${locate(t, '"x!a"')} header 'x!a' and header 'x_a' (line ${locate(t, '"x_a"').split(':')[0]}) both get the security scheme name 'x_a': name one with 'securityScheme' (/routers/tags/guards/deleteOne/2/header)`,
    ])
    // A scheme the file declares under that name documents them both: no collision to report.
    const declared = base() as ReturnType<typeof base> & { openapi?: unknown }
    declared.routers['tags']!['guards'] = { getAll: [{ header: 'x_a', equals: 'a' }], deleteOne: [{ header: 'x!a', equals: 'b' }] }
    declared.openapi = { securitySchemes: { x_a: { type: 'apiKey', in: 'header', name: 'x_a' } } }
    assert.deepEqual(issuesOf(text(declared)), [])
  })

  it('openapi: an unknown key, a license without a name, a scheme of no known shape, a scheme name that is not one, a router name that is not an identifier', () => {
    const file = base() as ReturnType<typeof base> & { openapi?: unknown }
    file.openapi = {
      licence: { name: 'MIT' },
      license: { url: 'https://opensource.org/license/mit' },
      securitySchemes: { bearer: { type: 'http' }, 'my scheme': { type: 'apiKey', in: 'header', name: 'x-key' } },
    }
    file.routers['tags']!['name'] = 'tag-list'
    const t = text(file)
    assert.deepEqual(issuesOf(t).sort(), [
      `${locate(t, '"licence"')} unknown key 'licence' in 'openapi': did you mean 'license'? (/openapi/licence)`,
      `${locate(t, '{', locate(t, '"license"'))} 'license' lacks the required key 'name' (/openapi/license)`,
      `${locate(t, '{', locate(t, '"bearer"'))} 'bearer' is not valid: expected an OpenAPI security scheme: { type: apiKey, in, name }, { type: http, scheme, bearerFormat? }, { type: oauth2, flows } or { type: openIdConnect, openIdConnectUrl }, each with an optional description (/openapi/securitySchemes/bearer)`,
      `${locate(t, '"my scheme"')} 'my scheme' is not a valid name here: it must match ^[A-Za-z0-9._-]+$ (/openapi/securitySchemes/my scheme)`,
      `${locate(t, '"tag-list"')} 'name' must match ^[A-Za-z_][A-Za-z0-9_]*$ (/routers/tags/name)`,
    ].sort())
  })

  it('database: path is for the embedded engine only, name for MongoDB only', () => {
    const t = text({ ...base(), database: { engine: 'mongodb', path: 'data' } })
    assert.deepEqual(issuesOf(t), [`${locate(t, '"data"')} 'path' applies to the embedded engine only (/database/path)`])
    const u = text({ ...base(), database: { engine: 'embedded', name: 'shop' } })
    assert.deepEqual(issuesOf(u), [`${locate(u, '"shop"')} 'name' applies to MongoDB only (/database/name)`])
  })

  it('every error of the file at once, sorted by line in the message', () => {
    const file = base()
    file.routers['notes']!['modle'] = 'Note'
    file.routers['tags']!['prefix'] = 'tags'
    const t = text(file)
    assert.equal(issuesOf(t).length, 2)
    const message = (() => {
      try {
        parseApiFile(t, 'api.json')
      } catch (error) {
        return (error as Error).message
      }
      return ''
    })()
    assert.deepEqual(message.split('\n').map((line) => line.split(': ')[0]), ['api.json', `api.json:${locate(t, '"modle"')}`, `api.json:${locate(t, '"tags"', locate(t, '"prefix": "tags"'))}`])
  })

  it('a key named __proto__ stays a key (refused as unknown), never the prototype of the parsed object', () => {
    const t = '{ "models": {}, "routers": {}, "__proto__": { "polluted": true } }'
    assert.deepEqual(issuesOf(t), [`1:32 unknown key '__proto__' in the file (allowed: $schema, title, version, description, database, limits, auth, cors, rateLimit, trustProxy, logLevel, openapi, dataApi, admin, models, routers) (/__proto__)`])
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined)
  })

  it("the demo's api.json names the installed package's schema in $schema (it resolves through node_modules, as in a user's project), and passes", async () => {
    const path = new URL('../../api.json', import.meta.url)
    const example = await readFile(path, 'utf8')
    const { $schema } = JSON.parse(example) as { $schema: string }
    assert.equal($schema, './node_modules/fastify-mongo-crud/schema/api-file.schema.json')
    assert.equal(await realpath(new URL($schema, path)), await realpath(API_FILE_SCHEMA_URL))
    assert.deepEqual(issuesOf(example), [])
  })
})
