/**
 * A misspelt field name in a router option that TypeScript did not see (JavaScript, a cast, options built
 * from data) is refused at registration: FMC_ERR_OPTIONS_INVALID, naming the option, the wrong name and the
 * fields it may name, ending with the closest of them when one is close ("did you mean"), so that the
 * mistake is put right without reading the model. Store-independent: runs
 * once, on the engine in memory.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'

const User = MongoModel('MisspeltUser', { name: Type.String(), email: Type.String(), age: Type.Optional(Type.Integer()) })

/** Each misspelt option, and what its refusal must say (the option, the wrong name, the right ones). */
const MISSPELT: ReadonlyArray<readonly [string, Record<string, unknown>, RegExp]> = [
  ['identifierField', { identifierField: 'emial' }, /'identifierField' must be '_id' or a top-level field of the model \(name, email, age\), received "emial": did you mean 'email'\?$/],
  ['sortable', { sortable: ['name', 'nope'] }, /'sortable\[1\]' names 'nope', which is not 'id' or a field of the model \(name, email, age\)$/],
  ['sortable, misspelt', { sortable: ['name', 'eamil'] }, /'sortable\[1\]' names 'eamil', which is not 'id' or a field of the model \(name, email, age\): did you mean 'email'\?$/],
  ['filterable', { filterable: ['nmae.first'] }, /'filterable\[0\]' names 'nmae.first', which is not 'id' or a field of the model \(name, email, age\): did you mean 'name.first'\?$/],
  ['an index key', { indexes: [{ key: { agee: 1 } }] }, /'indexes\[0\]'.key names 'agee', which is not '_id' or a field of the model \(name, email, age\): did you mean 'age'\?$/],
  ['defaultSort.field', { defaultSort: { field: 'emial' } }, /'defaultSort.field' "emial" is not a sortable field \(see 'sortable': id, name, email, age\): did you mean 'email'\?$/],
  ['defaultSort.field outside sortable', { sortable: ['name'], defaultSort: { field: 'age' } }, /'defaultSort.field' "age" is not a sortable field \(see 'sortable': name\)/],
]

describe('a misspelt field name in the router options is refused at registration', () => {
  for (const [name, option, message] of MISSPELT) {
    it(`${name}: FMC_ERR_OPTIONS_INVALID naming the wrong name and the fields`, async () => {
      const db = await openEmbedded()
      const app = await createApp({ title: 't', version: '1', fastify: { logger: false } })
      try {
        await assert.rejects(
          async () => {
            // biome-ignore lint/suspicious/noExplicitAny: the misspelt options TypeScript refuses, as JavaScript would pass them
            await app.register(CRUDRouter, { model: User, db, collectionName: 'users', prefix: '/users', ...option } as any)
            await app.ready()
          },
          (error: Error & { code?: string }) => {
            assert.equal(error.code, 'FMC_ERR_OPTIONS_INVALID')
            assert.match(error.message, message)
            return true
          }
        )
      } finally {
        await app.close().catch(() => {})
        await db.close()
      }
    })
  }
})
