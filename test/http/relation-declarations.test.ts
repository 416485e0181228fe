import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, MongoModel, Type } from 'fastify-mongo-crud'
import { User, UserOut } from '../harness/models.ts'

const Message = MongoModel('Message', { text: Type.String(), userId: Type.String() })
const Address = MongoModel('Address', { street: Type.String() })

type PopulateOptions = ConstructorParameters<typeof CRUDPopulate>[0]

/** Builds a CRUDPopulate from deliberately wrong options, bypassing the type checker. */
function populate(options: Record<string, unknown>): CRUDPopulate {
  return new CRUDPopulate(options as unknown as PopulateOptions)
}

const valid = { field: 'friends', collection: 'users', model: User }

describe('new CRUDPopulate(...) validates at construction', () => {
  it('accepts field, collection and model', () => {
    assert.doesNotThrow(() => populate(valid))
  })

  it('accepts an output model', () => {
    assert.doesNotThrow(() => populate({ ...valid, modelOut: UserOut }))
  })

  for (const [label, value] of [
    ['missing', undefined],
    ['empty', ''],
    ['not a string', 42],
  ] as const) {
    it(`throws "CRUDPopulate: 'field' must be a non-empty string" when field is ${label}`, () => {
      const { field: _field, ...rest } = valid
      assert.throws(() => populate(value === undefined ? rest : { ...rest, field: value }), {
        message: "CRUDPopulate: 'field' must be a non-empty string",
      })
    })

    it(`throws "CRUDPopulate: 'collection' must be a non-empty string" when collection is ${label}`, () => {
      const { collection: _collection, ...rest } = valid
      assert.throws(() => populate(value === undefined ? rest : { ...rest, collection: value }), {
        message: "CRUDPopulate: 'collection' must be a non-empty string",
      })
    })
  }

  for (const [label, model] of [
    ['missing', undefined],
    ['a plain object schema', Type.Object({ name: Type.String() })],
    ['an output model', UserOut],
    ['a string', 'User'],
  ] as const) {
    it(`throws naming 'model' when model is ${label}`, () => {
      const { model: _model, ...rest } = valid
      assert.throws(() => populate(model === undefined ? rest : { ...rest, model }), /CRUDPopulate: 'model'/)
    })
  }

  for (const [label, modelOut] of [
    ['an input model', User],
    ['a plain object schema', Type.Object({ name: Type.String() })],
  ] as const) {
    it(`throws naming 'modelOut' when modelOut is ${label}`, () => {
      assert.throws(() => populate({ ...valid, modelOut }), /CRUDPopulate: 'modelOut'/)
    })
  }
})

describe('relation declarations exist', () => {
  it('CRUDLookup constructs from a valid declaration', () => {
    const lookup = new CRUDLookup({
      model: Message,
      collectionName: 'messages',
      prefix: 'messages',
      localField: '_id',
      foreignField: 'userId',
    })
    assert.ok(lookup instanceof CRUDLookup)
  })

  it('CRUDEmbed constructs from a valid declaration', () => {
    const embed = new CRUDEmbed({ model: Address, embedName: 'addresses' })
    assert.ok(embed instanceof CRUDEmbed)
  })
})
