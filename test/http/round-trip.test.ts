import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { buildApp, type TestApp } from '../harness/app.ts'
import { OBJECT_ID } from '../harness/expect.ts'
import { Event } from '../harness/models.ts'
import { createDoc, getJson } from '../harness/seed.ts'
import { describeEachStore } from '../harness/stores.ts'

const organizerId = '65b000000000000000000001'
const attendeeIds = ['65b000000000000000000002', '65b000000000000000000003']

const event = {
  title: 'launch',
  startsAt: '2024-05-06T07:08:09.123Z',
  done: false,
  score: 4.75,
  tags: ['a', 'b', 'a'],
  location: { city: 'Oslo', geo: { lat: 59.91, lng: 10.75 } },
  slots: [
    { day: 1, hours: [9, 10] },
    { day: 3, hours: [] },
  ],
  organizerId,
  attendeeIds,
}

describeEachStore('values round-trip through the database', (mode) => {
  let t: TestApp
  before(async () => {
    t = await buildApp(mode, { model: Event, collectionName: 'events', prefix: '/events' })
  })
  after(() => t.close())

  it('create answers the document exactly as sent, with a string id', async () => {
    const created = await createDoc(t.app, '/events', event)
    assert.match(created.id, OBJECT_ID)
    assert.deepEqual(created, { id: created.id, ...event })
  })

  it('GET one and list answer dates, nested objects, arrays and reference ids unchanged', async () => {
    const created = await createDoc(t.app, '/events', { ...event, title: 'read-back' })
    assert.deepEqual(await getJson(t.app, `/events/${created.id}`), { id: created.id, ...event, title: 'read-back' })
    const listed = (await getJson(t.app, '/events')).find((doc: { id: string }) => doc.id === created.id)
    assert.deepEqual(listed, { id: created.id, ...event, title: 'read-back' })
  })

  it('renders ids as strings, never as objects', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/events' })
    assert.equal(res.statusCode, 200, res.body)
    for (const doc of res.json()) {
      assert.equal(typeof doc.id, 'string')
      assert.equal(typeof doc.organizerId, 'string')
      for (const id of doc.attendeeIds) assert.equal(typeof id, 'string')
    }
    assert.ok(!res.body.includes('$oid'), res.body)
    assert.ok(!res.body.includes('_id'), res.body)
  })

  it('PUT and PATCH keep nested values and reference ids', async () => {
    const created = await createDoc(t.app, '/events', event)
    const replaced = { ...event, location: { city: 'Bergen', geo: { lat: 60.39, lng: 5.32 } }, attendeeIds: [] }
    const put = await t.app.inject({ method: 'PUT', url: `/events/${created.id}`, payload: replaced })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(put.json(), { id: created.id, ...replaced })
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/events/${created.id}`,
      payload: { startsAt: '2025-01-01T00:00:00.000Z', attendeeIds: [organizerId] },
    })
    assert.equal(patch.statusCode, 200, patch.body)
    assert.deepEqual(await getJson(t.app, `/events/${created.id}`), {
      id: created.id,
      ...replaced,
      startsAt: '2025-01-01T00:00:00.000Z',
      attendeeIds: [organizerId],
    })
  })
})
