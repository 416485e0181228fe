import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { CRUDEmbed, CRUDLookup, CRUDPopulate, MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import { buildApp, filtersQuery, queryString, type TestApp } from '../harness/app.ts'
import { expectDetail } from '../harness/expect.ts'
import { createDoc, type Json } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'
import { expectNoSecret } from './fixtures.ts'

/**
 * Populated documents, lookup children and embedded items are shaped by their own output models:
 * a `password` or `secret` of a related model never rides along in a parent's or child's response.
 */
const Person = MongoModel('Person', { name: Type.String(), password: Type.String() })
const PersonOut = MongoModelOut('PersonOut', { name: Type.String() })
const Team = MongoModel('Team', {
  name: Type.String(),
  memberIds: Type.Array(ObjectIdField()),
  leadId: Type.Optional(Type.Union([ObjectIdField(), Type.Null()])),
  auditorId: Type.Optional(ObjectIdField()),
})
/** Shows the populated members and lead; hides the auditor entirely. */
const TeamOut = MongoModelOut('TeamOut', {
  name: Type.String(),
  memberIds: Type.Array(ObjectIdField()),
  leadId: Type.Optional(Type.Union([ObjectIdField(), Type.Null()])),
})
const Task = MongoModel('Task', { title: Type.String(), teamId: ObjectIdField(), secret: Type.String() })
const TaskOut = MongoModelOut('TaskOut', { title: Type.String(), teamId: ObjectIdField() })
const Badge = MongoModel('Badge', { label: Type.String(), secret: Type.String() })
const BadgeOut = MongoModelOut('BadgeOut', { label: Type.String() })

function keysOf(doc: Json): string[] {
  return Object.keys(doc).sort()
}

function json(res: LightMyRequestResponse, status: number): Json {
  assert.equal(res.statusCode, status, res.body)
  expectNoSecret(res)
  return res.json()
}

describeEachStore('related documents never carry fields outside their output model', (mode) => {
  let t: TestApp
  let team: Json
  before(async () => {
    t = await buildApp(
      mode,
      { model: Person, modelOut: PersonOut, collectionName: 'people', prefix: '/people' },
      {
        model: Team,
        modelOut: TeamOut,
        collectionName: 'teams',
        prefix: '/teams',
        populates: [
          new CRUDPopulate({ field: 'memberIds', collection: 'people', model: Person, modelOut: PersonOut }),
          new CRUDPopulate({ field: 'leadId', collection: 'people', model: Person, modelOut: PersonOut }),
          new CRUDPopulate({ field: 'auditorId', collection: 'people', model: Person, modelOut: PersonOut }),
        ],
        lookups: [
          new CRUDLookup({ model: Task, modelOut: TaskOut, collectionName: 'tasks', prefix: 'tasks', localField: '_id', foreignField: 'teamId' }),
        ],
        embeds: [new CRUDEmbed({ model: Badge, modelOut: BadgeOut, embedName: 'badges' })],
      },
    )
    const people: Json[] = []
    for (const name of ['ann', 'ben', 'cid']) {
      people.push(await createDoc(t.app, '/people', { name, password: `SECRET-${name}` }))
    }
    team = await createDoc(t.app, '/teams', {
      name: 'core',
      memberIds: [people[0].id, people[1].id],
      leadId: people[0].id,
      auditorId: people[2].id,
    })
  })
  after(() => t.close())

  describe('populates', () => {
    it('GET one answers populated members and lead with PersonOut fields only, and no auditor', async () => {
      const doc = json(await t.app.inject({ method: 'GET', url: `/teams/${team.id}` }), 200)
      assert.deepEqual(keysOf(doc), ['id', 'leadId', 'memberIds', 'name'])
      assert.deepEqual(
        doc.memberIds.map((member: Json) => keysOf(member)),
        [
          ['id', 'name'],
          ['id', 'name'],
        ],
      )
      assert.deepEqual(keysOf(doc.leadId), ['id', 'name'])
    })

    it('GET list answers populated documents with PersonOut fields only', async () => {
      const docs = json(await t.app.inject({ method: 'GET', url: '/teams' }), 200)
      assert.equal(docs.length, 1)
      assert.ok(docs[0].memberIds.every((member: Json) => keysOf(member).join() === 'id,name'), JSON.stringify(docs))
    })

    it('GET list streamed (no limit, large page) answers the same shape', async () => {
      const docs = json(await t.app.inject({ method: 'GET', url: `/teams${queryString({ limit: 5000 })}` }), 200)
      assert.ok(docs[0].memberIds.every((member: Json) => keysOf(member).join() === 'id,name'), JSON.stringify(docs))
    })

    it('refuses filters and sort_by on the hidden auditor field', async () => {
      expectDetail(
        await t.app.inject({ method: 'GET', url: `/teams${filtersQuery({ auditorId: { $exists: true } })}` }),
        422,
        'filters: field "auditorId" is not filterable',
      )
      expectDetail(await t.app.inject({ method: 'GET', url: `/teams${queryString({ sort_by: 'auditorId' })}` }), 422, 'sort_by: field "auditorId" is not sortable')
    })
  })

  describe('lookup children', () => {
    it('answers every child route with TaskOut fields only', async () => {
      const base = `/teams/${team.id}/tasks`
      const created = json(await t.app.inject({ method: 'POST', url: base, payload: { title: 't1', secret: 'SECRET-task' } }), 201)
      assert.deepEqual(keysOf(created), ['id', 'teamId', 'title'])
      const one = `${base}/${created.id}`
      assert.deepEqual(keysOf(json(await t.app.inject({ method: 'GET', url: one }), 200)), ['id', 'teamId', 'title'])
      const list = json(await t.app.inject({ method: 'GET', url: base }), 200)
      assert.deepEqual(list.map(keysOf), [['id', 'teamId', 'title']])
      const streamed = json(await t.app.inject({ method: 'GET', url: `${base}${queryString({ limit: 5000 })}` }), 200)
      assert.deepEqual(streamed.map(keysOf), [['id', 'teamId', 'title']])
      const put = json(await t.app.inject({ method: 'PUT', url: one, payload: { title: 't2', secret: 'SECRET-task-2' } }), 200)
      assert.deepEqual(keysOf(put), ['id', 'teamId', 'title'])
      const patch = json(await t.app.inject({ method: 'PATCH', url: one, payload: { secret: 'SECRET-task-3' } }), 200)
      assert.deepEqual(keysOf(patch), ['id', 'teamId', 'title'])
    })

    it('refuses filters and sort_by on the hidden child field', async () => {
      const base = `/teams/${team.id}/tasks`
      expectDetail(
        await t.app.inject({ method: 'GET', url: `${base}${filtersQuery({ secret: { $regex: '^SECRET' } })}` }),
        422,
        'filters: field "secret" is not filterable',
      )
      expectDetail(await t.app.inject({ method: 'GET', url: `${base}${queryString({ sort_by: 'secret' })}` }), 422, 'sort_by: field "secret" is not sortable')
    })
  })

  describe('embedded items', () => {
    it('answers every item route with BadgeOut fields only', async () => {
      const base = `/teams/${team.id}/badges`
      const created = json(await t.app.inject({ method: 'POST', url: base, payload: { label: 'gold', secret: 'SECRET-badge' } }), 201)
      assert.deepEqual(keysOf(created), ['id', 'label'])
      const one = `${base}/${created.id}`
      assert.deepEqual(keysOf(json(await t.app.inject({ method: 'GET', url: one }), 200)), ['id', 'label'])
      assert.deepEqual(json(await t.app.inject({ method: 'GET', url: base }), 200).map(keysOf), [['id', 'label']])
      const patch = json(await t.app.inject({ method: 'PATCH', url: one, payload: { secret: 'SECRET-badge-2' } }), 200)
      assert.deepEqual(keysOf(patch), ['id', 'label'])
    })

    it('refuses filters and sort_by on the hidden item field', async () => {
      const base = `/teams/${team.id}/badges`
      expectDetail(
        await t.app.inject({ method: 'GET', url: `${base}${filtersQuery({ secret: { $regex: '^SECRET' } })}` }),
        422,
        'filters: field "secret" is not filterable',
      )
      expectDetail(await t.app.inject({ method: 'GET', url: `${base}${queryString({ sort_by: 'secret' })}` }), 422, 'sort_by: field "secret" is not sortable')
    })

    it('never shows the items through the parent', async () => {
      json(await t.app.inject({ method: 'GET', url: `/teams/${team.id}` }), 200)
      json(await t.app.inject({ method: 'GET', url: '/teams' }), 200)
    })
  })
})
