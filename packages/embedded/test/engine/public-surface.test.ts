import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, it } from 'node:test'
import * as engine from '../../src/index.ts'
import { type CollectionInfo, MAX_BSON_SIZE, type ModifyResult } from '../../src/index.ts'
import { ENGINES, useEngine } from './engines.ts'

/** What the package exports (README.md documents exactly these), and the methods the wire server needs from it. */
describe('the public surface', () => {
  it("isLoopbackHost: this machine's loopback interface only, as the README says", () => {
    assert.deepEqual(['localhost', '127.0.0.2', '::1', '0.0.0.0', '192.168.1.2'].map(engine.isLoopbackHost), [true, true, true, false, false])
  })

  it('exports the engine, the wire server (and its loopback rule), the backup and the BSON size limit, nothing else at run time', () => {
    assert.deepEqual(Object.keys(engine).sort(), ['EmbeddedCollection', 'EmbeddedDb', 'MAX_BSON_SIZE', 'backupDirectory', 'isLoopbackHost', 'openEmbedded', 'startWireServer'])
    assert.equal(MAX_BSON_SIZE, 16 * 1024 * 1024)
  })

  it('loads none of the wire server until startWireServer is called: an application that only opens the engine starts without it', () => {
    // A loader hook in a fresh process names every module loaded, on stderr.
    const hooks = `export async function load(url, context, next) { if (url.includes('/src/')) process.stderr.write('loaded ' + url + '\\n'); return next(url, context) }`
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)})`
    const script = `const engine = await import(${JSON.stringify(new URL('../../src/index.ts', import.meta.url).href)}); const db = await engine.openEmbedded(); await db.collection('c').insertOne({ a: 1 }); console.error('opened'); await db.close()`
    const run = spawnSync(process.execPath, ['--conditions=fmc-source', '--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script], { encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    const loaded = run.stderr.split('\n').filter((line) => line.startsWith('loaded '))
    assert.ok(loaded.some((line) => line.includes('/src/open-embedded.ts')) && run.stderr.includes('opened'), run.stderr)
    assert.deepEqual(loaded.filter((line) => line.includes('/src/wire/') && !line.endsWith('/loopback-host.ts') && !line.endsWith('/start-wire-server.ts')), [])
  })
})

for (const kind of ENGINES) {
  describe(`driver-shaped methods the wire server uses (${kind})`, () => {
    const db = useEngine(kind)

    it('listCollections answers the collections whose description matches the filter, by name', async () => {
      await db().collection('logs').insertOne({ x: 1 })
      await db().createCollection('audit')
      await db().db('other').collection('elsewhere').insertOne({ x: 1 })
      const all: CollectionInfo[] = [
        { name: 'audit', type: 'collection', options: {}, info: { readOnly: false }, idIndex: { v: 2, key: { _id: 1 }, name: '_id_' } },
        { name: 'logs', type: 'collection', options: {}, info: { readOnly: false }, idIndex: { v: 2, key: { _id: 1 }, name: '_id_' } },
      ]
      assert.deepEqual(await db().listCollections().toArray(), all)
      assert.deepEqual(await db().listCollections({ name: { $regex: '^l' } }, { nameOnly: true }).toArray(), [{ name: 'logs', type: 'collection' }])
      await assert.rejects(db().listCollections({ name: { $bogus: 1 } }).toArray(), { code: 2 })
    })

    it('distinct answers the values of a path among the matches, array elements one by one, in BSON order', async () => {
      const coll = db().collection('distinct')
      await coll.insertOne({ tags: ['b', 1], keep: true })
      await coll.insertOne({ tags: 'a', keep: true })
      await coll.insertOne({ tags: 'z' })
      assert.deepEqual(await coll.distinct('tags', { keep: true }), [1, 'a', 'b'])
      assert.deepEqual(await coll.distinct('tags'), [1, 'a', 'b', 'z'])
      await assert.rejects(coll.distinct(''), { code: 14 })
      await assert.rejects(coll.distinct('a.__proto__'), { code: 2 })
    })

    it('find refuses a sort order other than 1 and -1, and reads { $natural: 1 } as scan order', async () => {
      const coll = db().collection('sorted')
      await coll.insertOne({ _id: 2 })
      await coll.insertOne({ _id: 1 })
      await assert.rejects(coll.find({}, { sort: { _id: 2 as 1 } }).toArray(), { code: 2 })
      await assert.rejects(coll.find({}, { sort: { $natural: -1 } }).toArray(), { code: 2 })
      assert.deepEqual(await coll.find({}, { sort: { $natural: 1 } }).toArray(), await coll.find({}).toArray())
      await assert.rejects(coll.findOneAndDelete({}, { sort: { _id: 0 as 1 } }), { code: 2 })
    })

    it('findOneAndUpdate with includeResultMetadata answers the projected value and what happened', async () => {
      const coll = db().collection('fam')
      const result: ModifyResult = await coll.findOneAndUpdate({ _id: 5 }, { $set: { n: 5, m: 1 } }, { upsert: true, returnDocument: 'after', projection: { n: 1 }, includeResultMetadata: true })
      assert.deepEqual(result, { value: { _id: 5, n: 5 }, lastErrorObject: { n: 1, updatedExisting: false, upserted: 5 }, ok: 1 })
    })

    it('configureFailPoint refuses an unknown fail point or mode with BadValue', () => {
      assert.throws(() => db().configureFailPoint('nope' as 'maxTimeAlwaysTimeOut', 'alwaysOn'), { code: 2 })
      assert.throws(() => db().configureFailPoint('maxTimeAlwaysTimeOut', 'sometimes' as 'off'), { code: 2 })
    })
  })
}
