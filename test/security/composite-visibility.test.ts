import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CRUDEmbed, MongoModel, MongoModelOut, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { getJson, type Json, seedDocs } from '../harness/seed.ts'
import { describeEachStore, storeModes } from '../harness/stores.ts'
import { expectNoSecret, expectRefused, SECRET } from './fixtures.ts'

/**
 * An output field typed as a union (`anyOf`) or an intersection (`allOf`) of objects shows only the
 * sub-fields its variants declare: the serializer drops the others, so filters, `sort_by` and `fields=`
 * must refuse them too, or a `$regex` recovers a hidden value character by character.
 */
const Person = Type.Object({ kind: Type.Literal('person'), name: Type.String(), ssn: Type.String() })
const Company = Type.Object({ kind: Type.Literal('company'), name: Type.String(), vat: Type.String(), pin: Type.String() })
const NoteItem = Type.Object({ kind: Type.Literal('note'), at: Type.Integer(), note: Type.String(), token: Type.String() })
const CodeItem = Type.Object({ kind: Type.Literal('code'), at: Type.Integer(), code: Type.String(), key: Type.String() })
/** Open variants: what they hold is shown, so their sub-paths stay open. */
const Extras = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Object({ label: Type.String() })])
const Attrs = Type.Intersect([Type.Object({ label: Type.String() }), Type.Record(Type.String(), Type.Unknown())])

const Holder = MongoModel('Holder', {
  name: Type.String(),
  owner: Type.Optional(Type.Union([Person, Company])),
  profile: Type.Optional(Type.Intersect([Type.Object({ city: Type.String(), pin: Type.String() }), Type.Object({ nick: Type.String(), token: Type.String() })])),
  contact: Type.Optional(Type.Union([Type.String(), Type.Object({ email: Type.String(), phone: Type.String() })])),
  partner: Type.Optional(Type.Union([Type.Object({ name: Type.String(), ssn: Type.String() }), Type.Null()])),
  history: Type.Optional(Type.Array(Type.Union([NoteItem, CodeItem]))),
  extras: Type.Optional(Extras),
  attrs: Type.Optional(Attrs),
})

/** Hides owner.ssn, owner.pin, profile.pin, profile.token, contact.phone, partner.ssn, history.token and history.key. */
const HolderOut = MongoModelOut('HolderOut', {
  name: Type.String(),
  owner: Type.Optional(
    Type.Union([
      Type.Object({ kind: Type.Literal('person'), name: Type.String() }),
      Type.Object({ kind: Type.Literal('company'), name: Type.String(), vat: Type.String() }),
    ]),
  ),
  profile: Type.Optional(Type.Intersect([Type.Object({ city: Type.String() }), Type.Object({ nick: Type.String() })])),
  contact: Type.Optional(Type.Union([Type.String(), Type.Object({ email: Type.String() })])),
  partner: Type.Optional(Type.Union([Type.Object({ name: Type.String() }), Type.Null()])),
  history: Type.Optional(
    Type.Array(
      Type.Union([
        Type.Object({ kind: Type.Literal('note'), at: Type.Integer(), note: Type.String() }),
        Type.Object({ kind: Type.Literal('code'), at: Type.Integer(), code: Type.String() }),
      ]),
    ),
  ),
  extras: Type.Optional(Extras),
  attrs: Type.Optional(Attrs),
})

const holdersRouter = { model: Holder, modelOut: HolderOut, collectionName: 'holders', prefix: '/holders' }

function holder(name: string, owner: Record<string, unknown>, contact: unknown): Record<string, unknown> {
  return {
    name,
    owner,
    profile: { city: `city-${name}`, pin: `${SECRET}-pin-${name}`, nick: `nick-${name}`, token: `${SECRET}-token-${name}` },
    contact,
    partner: { name: `partner-${name}`, ssn: `${SECRET}-partner-${name}` },
    history: [
      { kind: 'note', at: 1, note: 'joined', token: `${SECRET}-note-${name}` },
      { kind: 'code', at: 2, code: `code-${name}`, key: `${SECRET}-key-${name}` },
    ],
    extras: { anything: `x-${name}` },
    attrs: { label: `label-${name}`, color: `color-${name}` },
  }
}

const HOLDERS = [
  holder('alice', { kind: 'person', name: 'Alice A', ssn: `${SECRET}-ssn-alice` }, { email: 'alice@example.com', phone: `${SECRET}-phone-alice` }),
  holder('bob', { kind: 'company', name: 'Bob Ltd', vat: 'VAT-B', pin: `${SECRET}-pin-bob` }, 'bob@example.com'),
  holder('carol', { kind: 'person', name: 'Carol C', ssn: `${SECRET}-ssn-carol` }, { email: 'carol@example.com', phone: `${SECRET}-phone-carol` }),
]

const HIDDEN = ['owner.ssn', 'owner.pin', 'profile.pin', 'profile.token', 'contact.phone', 'partner.ssn', 'history.token', 'history.key']

const names = (docs: Json[]) => docs.map((doc: { name: string }) => doc.name).sort()

describeEachStore('unions and intersections: hidden sub-fields are out of reach', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, holdersRouter)
    await seedDocs(t.app, '/holders', HOLDERS)
  })
  after(() => t.close())

  const list = (filter: unknown) => t.app.inject({ method: 'GET', url: `/holders${filtersQuery(filter)}` })
  const sorted = (field: string) => t.app.inject({ method: 'GET', url: `/holders${queryString({ sort_by: field })}` })
  const filtered = async (filter: unknown) => names(await getJson(t.app, `/holders${filtersQuery(filter)}`))

  it('responses leave the hidden sub-fields out (what the rest relies on)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/holders' })
    assert.equal(res.statusCode, 200, res.body)
    expectNoSecret(res)
    const bob = res.json().find((doc: Json) => doc.name === 'bob')
    assert.deepEqual(bob.owner, { kind: 'company', name: 'Bob Ltd', vat: 'VAT-B' })
    assert.deepEqual(bob.profile, { city: 'city-bob', nick: 'nick-bob' })
  })

  describe('filters', () => {
    for (const path of HIDDEN) {
      it(`answers 422 'filters: field "${path}" is not filterable' to a $regex on it`, async () => {
        const res = await list({ [path]: { $regex: `^${SECRET}` } })
        expectDetail(res, 422, `filters: field "${path}" is not filterable`)
        expectNoSecret(res)
      })
    }

    it('answers a hidden sub-field exactly as an unknown one', async () => {
      for (const [hidden, unknown] of [['owner.ssn', 'owner.nosuch'], ['profile.pin', 'profile.nosuch'], ['contact.phone', 'contact.nosuch']] as const) {
        const a = (await list({ [hidden]: { $exists: true } })).json().detail
        const b = (await list({ [unknown]: { $exists: true } })).json().detail
        assert.equal(String(b).replace(unknown, hidden), a)
      }
    })

    it('refuses hidden sub-fields inside $or, $not and $elemMatch', async () => {
      expectRefused(await list({ $or: [{ name: 'alice' }, { 'owner.ssn': { $regex: '^S' } }] }), 'owner.ssn')
      expectRefused(await list({ 'profile.token': { $not: { $regex: '^S' } } }), 'profile.token')
      expectRefused(await list({ history: { $elemMatch: { token: { $regex: `^${SECRET}` } } } }), 'token')
      expectRefused(await list({ history: { $elemMatch: { kind: 'code', key: { $regex: `^${SECRET}` } } } }), 'key')
    })

    it('refuses a whole variant compared as a literal when it names a hidden sub-field', async () => {
      expectRefused(await list({ owner: { kind: 'person', name: 'Alice A', ssn: `${SECRET}-ssn-alice` } }), 'ssn')
      expectRefused(await list({ profile: { $eq: { city: 'city-alice', pin: `${SECRET}-pin-alice` } } }), 'pin')
      expectRefused(await list({ contact: { $in: [{ email: 'alice@example.com', phone: `${SECRET}-phone-alice` }] } }), 'phone')
    })

    it('filters on the visible sub-fields of every variant', async () => {
      assert.deepEqual(await filtered({ 'owner.name': { $regex: '^(Alice|Bob)' } }), ['alice', 'bob'])
      assert.deepEqual(await filtered({ 'owner.vat': 'VAT-B' }), ['bob'])
      assert.deepEqual(await filtered({ 'owner.kind': 'person' }), ['alice', 'carol'])
      assert.deepEqual(await filtered({ 'profile.city': 'city-carol', 'profile.nick': 'nick-carol' }), ['carol'])
      assert.deepEqual(await filtered({ 'contact.email': 'alice@example.com' }), ['alice'])
      assert.deepEqual(await filtered({ contact: 'bob@example.com' }), ['bob'])
      assert.deepEqual(await filtered({ 'partner.name': 'partner-bob' }), ['bob'])
      assert.deepEqual(await filtered({ 'history.code': 'code-carol' }), ['carol'])
      assert.deepEqual(await filtered({ history: { $elemMatch: { kind: 'note', note: 'joined' } } }), ['alice', 'bob', 'carol'])
    })

    it('checks values against the type any variant gives the path', async () => {
      expectDetail(await list({ 'owner.vat': 7 }), 422, 'filters: "owner.vat" expects a value of type string')
      expectDetail(await list({ 'profile.city': 7 }), 422, 'filters: "profile.city" expects a value of type string')
      expectDetail(await list({ 'history.at': 'one' }), 422, 'filters: "history.at" expects a value of type number')
      expectRefused(await list({ contact: 7 }), 'contact')
      assert.deepEqual(await filtered({ 'history.at': { $gte: 2 } }), ['alice', 'bob', 'carol'])
    })
  })

  describe('sort_by', () => {
    for (const path of HIDDEN) {
      it(`answers 422 'sort_by: field "${path}" is not sortable'`, async () => {
        expectDetail(await sorted(path), 422, `sort_by: field "${path}" is not sortable`)
      })
    }

    it('sorts on the visible sub-fields of unions and intersections', async () => {
      const byOwner = await getJson(t.app, `/holders${queryString({ sort_by: 'owner.name', order_by: 'DESC' })}`)
      assert.deepEqual(byOwner.map((doc: Json) => doc.name), ['carol', 'bob', 'alice'])
      const byCity = await getJson(t.app, `/holders${queryString({ sort_by: 'profile.nick' })}`)
      assert.deepEqual(byCity.map((doc: Json) => doc.name), ['alice', 'bob', 'carol'])
    })
  })

  describe('fields=', () => {
    it('refuses a hidden sub-field exactly as an unknown one', async () => {
      const fields = (value: string) => t.app.inject({ method: 'GET', url: `/holders${queryString({ fields: value })}` })
      expectDetail(await fields('owner.ssn'), 422, 'fields: "owner.ssn" is not a field of the output model')
      expectDetail(await fields('owner.nosuch'), 422, 'fields: "owner.nosuch" is not a field of the output model')
      expectDetail(await fields('profile.pin'), 422, 'fields: "profile.pin" is not a field of the output model')
    })

    it('answers the visible sub-fields only when a composite field is selected', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/holders${queryString({ fields: 'owner,profile,contact,history' })}` })
      assert.equal(res.statusCode, 200, res.body)
      expectNoSecret(res)
    })
  })

  describe('open variants keep their sub-paths open', () => {
    it('filters and sorts below a union with a Type.Record variant', async () => {
      assert.deepEqual(await filtered({ 'extras.anything': 'x-bob' }), ['bob'])
      const sortedDocs = await getJson(t.app, `/holders${queryString({ sort_by: 'extras.anything', order_by: 'DESC' })}`)
      assert.deepEqual(sortedDocs.map((doc: Json) => doc.name), ['carol', 'bob', 'alice'])
    })

    it('filters below an intersection with a Type.Record part', async () => {
      assert.deepEqual(await filtered({ 'attrs.color': { $regex: '^color-c' } }), ['carol'])
      assert.deepEqual(await filtered({ 'attrs.label': 'label-alice' }), ['alice'])
    })
  })
})

/** An embedded item model, and an output model that names it by `$ref` (alone, and as a union variant). */
const Note = MongoModel('Note', { text: Type.String(), secret: Type.String() })
const NoteOut = MongoModelOut('NoteOut', { text: Type.String() })
const Board = MongoModel('Board', {
  name: Type.String(),
  notes: Type.Optional(Type.Array(Note)),
  pinned: Type.Optional(Type.Union([Type.String(), Type.Object({ text: Type.String(), secret: Type.String() })])),
  tagged: Type.Optional(Type.Array(Type.Union([Type.Object({ label: Type.String(), secret: Type.String() }), Type.Object({ code: Type.Integer(), secret: Type.String() })]))),
})
const BoardOut = MongoModelOut('BoardOut', {
  name: Type.String(),
  notes: Type.Optional(Type.Array(Type.Ref('NoteOut'))),
  pinned: Type.Optional(Type.Union([Type.String(), Type.Ref('NoteOut')])),
  tagged: Type.Optional(Type.Array(Type.Union([Type.Object({ label: Type.String() }), Type.Object({ code: Type.Integer() })]))),
})
/** An embedded item whose own output model hides a sub-field of a union. */
const Tag = MongoModel('Tag', { label: Type.String(), detail: Type.Union([Type.String(), Type.Object({ shown: Type.String(), secret: Type.String() })]) })
const TagOut = MongoModelOut('TagOut', { label: Type.String(), detail: Type.Union([Type.String(), Type.Object({ shown: Type.String() })]) })

describe(`$ref variants, embedded items and children [${storeModes[0]!.name}]`, () => {
  let t: TestApp
  let board: Json
  before(async () => {
    t = await buildApp(storeModes[0]!, {
      model: Board,
      modelOut: BoardOut,
      collectionName: 'boards',
      prefix: '/boards',
      embeds: [new CRUDEmbed({ model: Note, modelOut: NoteOut, embedName: 'notes' }), new CRUDEmbed({ model: Tag, modelOut: TagOut, embedName: 'tags' })],
    })
    ;[board] = await seedDocs(t.app, '/boards', [
      {
        name: 'main',
        notes: [{ text: 'hello', secret: `${SECRET}-note` }],
        pinned: { text: 'pinned', secret: `${SECRET}-pinned` },
        tagged: [{ label: 'a', secret: `${SECRET}-tagged` }],
      },
    ])
    await seedDocs(t.app, `/boards/${board.id}/tags`, [{ label: 'red', detail: { shown: 'yes', secret: `${SECRET}-tag` } }])
  })
  after(() => t.close())

  const get = (url: string) => t.app.inject({ method: 'GET', url })

  it('refuses hidden sub-fields of a $ref to a registered model, alone or as a union variant', async () => {
    expectNoSecret(await get('/boards'))
    for (const path of ['notes.secret', 'pinned.secret', 'tagged.secret']) {
      expectDetail(await get(`/boards${filtersQuery({ [path]: { $regex: `^${SECRET}` } })}`), 422, `filters: field "${path}" is not filterable`)
      expectDetail(await get(`/boards${queryString({ sort_by: path })}`), 422, `sort_by: field "${path}" is not sortable`)
    }
    assert.equal((await getJson(t.app, `/boards${filtersQuery({ 'notes.text': 'hello', 'pinned.text': 'pinned' })}`)).length, 1)
  })

  it('refuses hidden sub-fields of a union in an embedded item list', async () => {
    const items = `/boards/${board.id}/tags`
    expectNoSecret(await get(items))
    expectDetail(await get(`${items}${filtersQuery({ 'detail.secret': { $regex: `^${SECRET}` } })}`), 422, 'filters: field "detail.secret" is not filterable')
    expectDetail(await get(`${items}${queryString({ sort_by: 'detail.secret' })}`), 422, 'sort_by: field "detail.secret" is not sortable')
    assert.equal((await getJson(t.app, `${items}${filtersQuery({ 'detail.shown': 'yes' })}`)).length, 1)
  })
})

describe(`filterable, sortable and defaultSort naming composite fields [${storeModes[0]!.name}]`, () => {
  let t: TestApp
  before(async () => {
    t = await buildApp(storeModes[0]!, { ...holdersRouter, filterable: ['name', 'owner', 'profile'], sortable: ['owner', 'profile.city'] })
    await seedDocs(t.app, '/holders', HOLDERS)
  })
  after(() => t.close())

  const get = (url: string) => t.app.inject({ method: 'GET', url })

  it('listing a union or intersection field opens what the output model shows below it, not its hidden sub-fields', async () => {
    assert.deepEqual(names(await getJson(t.app, `/holders${filtersQuery({ 'owner.vat': 'VAT-B', 'profile.nick': 'nick-bob' })}`)), ['bob'])
    for (const path of ['owner.ssn', 'owner.pin', 'profile.pin', 'profile.token']) {
      expectDetail(await get(`/holders${filtersQuery({ [path]: { $regex: `^${SECRET}` } })}`), 422, `filters: field "${path}" is not filterable`)
    }
    expectDetail(await get(`/holders${queryString({ sort_by: 'owner.ssn' })}`), 422, 'sort_by: field "owner.ssn" is not sortable')
  })

  it('refuses a hidden sub-field listed by its own path at registration; the shown ones sort', async () => {
    for (const [option, path] of [['sortable', 'profile.pin'], ['filterable', 'owner.ssn'], ['filterable', 'history.token']] as const) {
      await assert.rejects(buildApp(storeModes[0]!, { ...holdersRouter, [option]: ['name', path] }), new RegExp(`'${option}\\[1\\]' names '${path}', which is hidden by the output model`))
    }
    assert.equal((await getJson(t.app, `/holders${queryString({ sort_by: 'profile.city' })}`)).length, 3)
    assert.equal((await getJson(t.app, `/holders${queryString({ sort_by: 'owner.name' })}`)).length, 3)
  })

  it('refuses a defaultSort on a hidden sub-field of a union at registration', async () => {
    await assert.rejects(buildApp(storeModes[0]!, { ...holdersRouter, defaultSort: { field: 'owner.ssn' } }), /defaultSort\.field/)
    await assert.rejects(buildApp(storeModes[0]!, { ...holdersRouter, defaultSort: { field: 'extras.constructor' } }), /defaultSort\.field/)
  })
})
