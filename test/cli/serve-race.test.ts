import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type RunningCli, startCli } from '../harness/cli.ts'

const API_FILE = join(import.meta.dirname, '..', '..', 'api.json')
const ALICE = '6b1607ec01d438aae2fa4afe'
const ROUNDS = 300

/**
 * The lost update a tester found, as they found it: `serve --data DIR`, then in each round a JSON Patch
 * and an atomic batch update of one note sent at once over HTTP, both with the tag it was created with.
 * On disk, the write queue let a PATCH's write go once applied, before its commit; the batch's
 * transaction, taking the queue then, read the version before it, and both answered 200 (18 rounds in
 * 300 before the fix). What is checked involves no timing: in every round exactly one applies.
 */
describe('serve --data: an atomic batch and a JSON Patch with the same If-Match, sent at once', () => {
  let dir: string
  let cli: RunningCli
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fmc-serve-race-'))
    cli = await startCli(['serve', API_FILE, '--data', join(dir, 'data')])
  })
  after(async () => {
    await cli.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it(`exactly one applies and the other answers 412, in each of ${ROUNDS} rounds`, async () => {
    const notes = `${cli.origin}/api/v2/notes`
    const headers = { 'content-type': 'application/json', 'x-user': ALICE }
    for (let round = 0; round < ROUNDS; round++) {
      const created = await fetch(notes, { method: 'POST', headers, body: JSON.stringify({ title: 'note', body: 'written' }) })
      assert.equal(created.status, 201)
      const { id } = (await created.json()) as { id: string }
      const tag = created.headers.get('etag') as string
      const [patch, batch] = await Promise.all([
        fetch(`${notes}/${id}`, {
          method: 'PATCH',
          headers: { ...headers, 'content-type': 'application/json-patch+json', 'if-match': tag },
          body: JSON.stringify([{ op: 'replace', path: '/title', value: 'patched' }]),
        }),
        fetch(`${notes}/_batch`, { method: 'POST', headers, body: JSON.stringify({ operations: [{ op: 'update', id, body: { body: 'batched' }, ifMatch: tag }] }) }),
      ])
      const answers = `round ${round}: PATCH ${patch.status} ${await patch.text()}, batch ${batch.status} ${await batch.text()}`
      assert.deepEqual([patch.status, batch.status].sort(), [200, 412], answers)
      const stored = (await (await fetch(`${notes}/${id}`, { headers })).json()) as { title: string, body: string }
      assert.deepEqual([stored.title, stored.body], patch.status === 200 ? ['patched', 'written'] : ['note', 'batched'], answers)
    }
  })
})
