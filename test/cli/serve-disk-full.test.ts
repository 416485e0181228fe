// `fastify-mongo-crud serve` with its data on a small filesystem, created into until the disk is full:
// the write that does not fit is 507 with a detail and is not stored, reads go on, the process stays
// up, and killed there it starts again on the full disk and serves what it stored.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { type RunningCli, startCli } from '../harness/cli.ts'
import { mountSmallDisk, smallDiskUnavailable } from '../harness/small-disk.ts'

const API = {
  title: 'Notes',
  version: '1.0.0',
  models: { Note: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note' } },
}

/** 16 KiB a note: a 4 MiB disk fills in a few hundred. */
const TEXT = 'x'.repeat(16 * 1024)

const NO_ROOM = 'The database has no room to store the write (its disk is full), and did not store it. Reads still work: send it again once space is freed'

async function create(cli: RunningCli, text: string): Promise<Response> {
  return fetch(`${cli.origin}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) })
}

/** Every note, through the list's pages. */
async function listIds(cli: RunningCli): Promise<string[]> {
  const ids: string[] = []
  for (let skip = 0; ; skip += 100) {
    const page = (await (await fetch(`${cli.origin}/notes?skip=${skip}&limit=100`)).json()) as { id: string }[]
    ids.push(...page.map((note) => note.id))
    if (page.length < 100) return ids
  }
}

describe('fastify-mongo-crud serve on a full disk', { timeout: 300_000 }, () => {
  it('answers 507 to the write that does not fit, serves reads, and restarts on the full disk', { skip: smallDiskUnavailable() }, async () => {
    const work = await mkdtemp(join(tmpdir(), 'fmc-serve-full-'))
    const file = join(work, 'api.json')
    await writeFile(file, JSON.stringify(API))
    const disk = mountSmallDisk(4 * 1024 * 1024)
    const data = join(disk.dir, 'data')
    let cli: RunningCli | undefined
    try {
      cli = await startCli(['serve', file, '--data', data])
      const created: string[] = []
      let refused: Response | undefined
      while (refused === undefined && created.length < 10_000) {
        const res = await create(cli, TEXT)
        if (res.status === 201) created.push(((await res.json()) as { id: string }).id)
        else refused = res
      }
      assert.ok(refused, 'the disk never filled')
      assert.equal(refused.status, 507)
      assert.deepEqual(await refused.json(), { detail: NO_ROOM })
      assert.equal(cli.child.exitCode, null, 'the process died')
      // Reads go on, and hold exactly what was acknowledged.
      assert.deepEqual((await listIds(cli)).sort(), [...created].sort())
      const last = await fetch(`${cli.origin}/notes/${created[created.length - 1]}`)
      assert.deepEqual(await last.json(), { id: created[created.length - 1], text: TEXT })
      // Killed on the full disk (a crash), it starts again there and serves what it stored.
      await cli.stop('SIGKILL')
      cli = await startCli(['serve', file, '--data', data])
      assert.deepEqual((await listIds(cli)).sort(), [...created].sort())
      assert.equal(await cli.stop(), 0)
    } finally {
      await cli?.stop('SIGKILL')
      disk.unmount()
      await rm(work, { recursive: true, force: true })
    }
  })
})
