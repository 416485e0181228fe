import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, type RouterOptions } from '../harness/app.ts'
import { storeModes } from '../harness/stores.ts'

// Registration checks do not depend on the store: one mode is enough.
const mode = storeModes[0]!

const Book = MongoModel('SetupBook', { title: Type.String(), pages: Type.Integer(), authorId: ObjectIdField(), tags: Type.Array(Type.String()) })
const Writer = MongoModel('SetupWriter', { name: Type.String() })

async function setupError(...routers: RouterOptions[]): Promise<{ code: string, message: string }> {
  try {
    const t = await buildApp(mode, ...routers)
    await t.close()
  } catch (error) {
    return error as { code: string, message: string }
  }
  assert.fail('registration succeeded')
}

async function registers(...routers: RouterOptions[]): Promise<void> {
  const t = await buildApp(mode, ...routers)
  await t.close()
}

describe('CRUDRouter checks modelOut against model at registration', () => {
  const router = (modelOut: ReturnType<typeof MongoModelOut>, extra: Partial<RouterOptions> = {}): RouterOptions => ({
    model: Book,
    modelOut,
    collectionName: 'books',
    prefix: '/books',
    ...extra,
  })

  it('refuses a modelOut field the model does not have (a typo), naming the field', async () => {
    const error = await setupError(router(MongoModelOut('SetupBookTypo', { titel: Type.String() })))
    assert.equal(error.code, 'FMC_ERR_OPTIONS_INVALID')
    assert.match(error.message, /modelOut SetupBookTypo does not fit the model SetupBook: 'titel' is not a field of the model/)
  })

  it('refuses a modelOut field of another kind, naming the field and both types', async () => {
    const error = await setupError(router(MongoModelOut('SetupBookKind', { pages: Type.String() })))
    assert.equal(error.code, 'FMC_ERR_OPTIONS_INVALID')
    assert.match(error.message, /'pages' is string in modelOut but number in the model/)
  })

  it('refuses a nested mismatch inside arrays', async () => {
    const error = await setupError(router(MongoModelOut('SetupBookTags', { tags: Type.Array(Type.Number()) })))
    assert.match(error.message, /'tags\[\]' is number in modelOut but string in the model/)
  })

  it('accepts an ObjectIdField served as a string, integer as number, and nullable or optional fields', async () => {
    await registers(
      router(
        MongoModelOut('SetupBookOk', {
          title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
          pages: Type.Number(),
          authorId: Type.String(),
          tags: Type.Array(Type.String()),
        }),
      ),
    )
  })

  it('checks the modelOut of lookups and embeds the same way', async () => {
    const Child = MongoModel('SetupChild', { bookId: ObjectIdField(), text: Type.String() })
    const ChildOut = MongoModelOut('SetupChildOut', { txt: Type.String() })
    const lookup = await setupError({
      ...router(MongoModelOut('SetupBookL', { title: Type.String() })),
      lookups: [new CRUDLookup({ prefix: 'children', collectionName: 'children', model: Child, modelOut: ChildOut, localField: '_id', foreignField: 'bookId' })],
    })
    assert.equal(lookup.code, 'FMC_ERR_LOOKUP_INVALID')
    assert.match(lookup.message, /CRUDLookup 'children'.*'txt' is not a field of the model/)
    const embed = await setupError({
      ...router(MongoModelOut('SetupBookE', { title: Type.String() })),
      embeds: [new CRUDEmbed({ embedName: 'notes', model: Child, modelOut: ChildOut })],
    })
    assert.equal(embed.code, 'FMC_ERR_EMBED_INVALID')
    assert.match(embed.message, /CRUDEmbed 'notes'.*'txt' is not a field of the model/)
  })

  it('accepts a populated field typed as the documents it is replaced by', async () => {
    await registers(
      router(MongoModelOut('SetupBookPopulated', { title: Type.String(), authorId: Type.Object({ id: Type.String(), name: Type.String() }) }), {
        populates: [new CRUDPopulate({ field: 'authorId', collection: 'writers', model: Writer })],
      }),
    )
  })
})

describe('a model name means one model in one app', () => {
  const Other = MongoModel('SetupWriter', { name: Type.String(), passwordHash: Type.String() })

  it('refuses two different models with the same name, naming the name and both places', async () => {
    const error = await setupError(
      { model: Writer, collectionName: 'writers', prefix: '/writers' },
      { model: Other, collectionName: 'others', prefix: '/others' },
    )
    assert.equal(error.code, 'FMC_ERR_MODEL_INVALID')
    assert.match(error.message, /SetupWriter/)
    assert.match(error.message, /\/writers/)
    assert.match(error.message, /\/others/)
  })

  it('refuses a child model named like a model of another router', async () => {
    const Message = MongoModel('SetupWriter', { text: Type.String(), writerId: ObjectIdField() })
    const error = await setupError(
      { model: Writer, collectionName: 'writers', prefix: '/writers' },
      {
        model: Book,
        collectionName: 'books',
        prefix: '/books',
        lookups: [new CRUDLookup({ prefix: 'messages', collectionName: 'messages', model: Message, localField: '_id', foreignField: 'writerId' })],
      },
    )
    assert.equal(error.code, 'FMC_ERR_MODEL_INVALID')
    assert.match(error.message, /SetupWriter/)
  })

  it('accepts the same model object registered by two routers (two API versions)', async () => {
    await registers(
      { model: Writer, collectionName: 'writers', prefix: '/v1/writers' },
      { model: Writer, collectionName: 'writers', prefix: '/v2/writers' },
    )
  })
})
