/**
 * A misspelt field name in an option of `app.register(CRUDRouter, { ... })` fails to compile with an error
 * at that option that names the wrong key and the right ones, for each option that names fields:
 * `identifierField`, `sortable` (and `filterable`), `defaultSort.field`, an index key, a key of the
 * `filterDependency` scope. And the mistake leaves the rest typed: a dependency's `request.body` still has
 * the model's keys (a misspelt one is still an error). Compiled with tsc in a fresh project against the
 * BUILT packages, as users get them: run after `npm run build` (`npm test` builds first).
 */
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { errorsOf, freshProject, requireBuiltPackages, tsc } from '../harness/fresh-project.ts'

/** A router of `User` with one more option (on line 9 of the file), and a dependency that reads the body's `nmae` (line 10). */
const snippet = (option: string) => `import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'
import { openEmbedded } from '@fastify-mongo-crud/embedded'

const db = await openEmbedded()
const User = MongoModel('User', { name: Type.String(), email: Type.String(), owner: Type.String(), address: Type.Optional(Type.Object({ city: Type.String() })) })
const app = await createApp({ title: 'My API', version: '1.0.0' })
await app.register(CRUDRouter, {
  model: User, db, collectionName: 'users',
  ${option},
  dependenciesCreateOne: [async (request) => { if (request.body?.nmae !== undefined) throw new Error('no') }],
})
`
const OPTION_LINE = 9
const DEPENDENCY_LINE = 10

/** Each misspelt option, the wrong key, and a right one its error must name. */
const MISSPELT = {
  identifierField: { option: "identifierField: 'emial'", wrong: 'emial', right: 'email' },
  sortable: { option: "sortable: ['name', 'nope']", wrong: 'nope', right: 'email' },
  filterable: { option: "filterable: ['nmae']", wrong: 'nmae', right: 'name' },
  defaultSort: { option: "defaultSort: { field: 'emial', direction: -1 }", wrong: 'emial', right: 'email' },
  indexKey: { option: 'indexes: [{ key: { email: 1 } }, { key: { ownr: 1, name: -1 } }]', wrong: 'ownr', right: 'owner' },
  scopeKey: { option: "filterDependency: async (request) => ({ name: 'x', ownr: String(request.headers['x-user']) })", wrong: 'ownr', right: 'owner' },
} as const

/** The same options, right: they compile (dotted paths under a field, `_id`, `$or` in a scope included). */
const RIGHT = [
  "identifierField: 'email'",
  "sortable: ['name', 'id', 'address.city'], filterable: ['_id', 'owner']",
  "defaultSort: { field: 'name' }",
  'indexes: [{ key: { email: 1 }, unique: true }, { key: { owner: 1, _id: -1 } }]',
  "filterDependency: (request) => ({ owner: String(request.headers['x-user']), $or: [{ name: 'a' }, { 'address.city': 'b' }] })",
]

describe('a misspelt field name in the router options', { timeout: 120_000 }, () => {
  let dir = ''
  let output = ''
  before(async () => {
    requireBuiltPackages()
    dir = await freshProject()
    for (const [name, { option }] of Object.entries(MISSPELT)) await writeFile(join(dir, `${name}.ts`), snippet(option))
    await writeFile(join(dir, 'right.ts'), snippet(RIGHT.join(',\n  ')).replace('request.body?.nmae', 'request.body?.name'))
    // One compiler run checks every file (it takes seconds).
    output = (await tsc(dir)).output
  })
  after(async () => {
    if (dir !== '') await rm(dir, { recursive: true, force: true })
  })

  it('compiles when every field name is right', () => {
    assert.deepEqual(errorsOf(output, 'right.ts'), [], output)
  })

  for (const [name, { wrong, right }] of Object.entries(MISSPELT)) {
    it(`${name}: one error at the option, naming '${wrong}' and '${right}'; request.body keeps the model's keys`, () => {
      const errors = errorsOf(output, `${name}.ts`)
      assert.equal(errors.length, 2, output)
      const [atOption, atBody] = errors as [string, string]
      assert.match(atOption, new RegExp(`^${name}\\.ts\\(${OPTION_LINE},\\d+\\): error TS`))
      assert.ok(atOption.includes(`'${wrong}'`) || atOption.includes(`"${wrong}"`), atOption)
      assert.ok(atOption.includes(`"${right}"`) || atOption.includes(`'${right}'`), atOption)
      // The dependency is typed by CRUDRouter's signature despite the mistake: its body has the model's keys.
      assert.match(atBody, new RegExp(`^${name}\\.ts\\(${DEPENDENCY_LINE},\\d+\\): error TS2339: Property 'nmae' does not exist on type '\\{ readonly [^']*readonly name\\?: unknown;`))
    })
  }

  it('keeps each error short enough to read: the option and the names, not the whole options type', () => {
    for (const name of ['identifierField', 'sortable', 'filterable', 'defaultSort']) {
      const [atOption] = errorsOf(output, `${name}.ts`)
      assert.ok((atOption ?? '').length < 600, atOption)
    }
  })
})
