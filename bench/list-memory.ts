/**
 * Peak memory of one unbounded `GET /items` (no limit), for a small and a large collection, on the
 * durable embedded engine. Each size runs in its own child process so the numbers do not mix.
 * Run: node --import tsx bench/list-memory.ts  (part of `npm run bench`)
 */
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openEmbedded } from '@fastify-mongo-crud/embedded'
import { CRUDRouter, createApp, MongoModel, Type } from 'fastify-mongo-crud'

const Item = MongoModel('Item', { name: Type.String(), n: Type.Integer(), tags: Type.Array(Type.String()) })

async function measure(size: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fmc-mem-'))
  const db = await openEmbedded({ path: dir })
  const items = db.collection('items')
  for (let i = 0; i < size; i++) await items.insertOne({ name: `item ${i} ${'x'.repeat(100)}`, n: i, tags: ['a', 'b'] })
  const app = await createApp({ title: 'mem', version: '1' })
  await app.register(CRUDRouter, { model: Item, db, collectionName: 'items', prefix: '/items' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  global.gc?.()
  const before = process.memoryUsage()
  let peakRss = before.rss
  let peakHeap = before.heapUsed
  const sampler = setInterval(() => {
    const now = process.memoryUsage()
    peakRss = Math.max(peakRss, now.rss)
    peakHeap = Math.max(peakHeap, now.heapUsed)
  }, 5)
  const bytes = await new Promise<number>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/items' }, (res) => {
      let total = 0
      res.on('data', (chunk: Buffer) => {
        total += chunk.length
      })
      res.on('end', () => resolve(total))
    })
      .on('error', reject)
      .end()
  })
  clearInterval(sampler)
  console.log(JSON.stringify({ size, bytes, rssGrowthMB: (peakRss - before.rss) / 2 ** 20, heapGrowthMB: (peakHeap - before.heapUsed) / 2 ** 20 }))
  await app.close()
  await db.close()
  await rm(dir, { recursive: true, force: true })
}

const size = process.argv[2]
if (size !== undefined) {
  await measure(Number(size))
} else {
  console.log('\n## Memory of an unbounded list (streamed), peak growth during the request')
  const rows: Array<Record<string, number>> = []
  for (const n of [1_000, 100_000]) {
    const child = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), String(n)], { encoding: 'utf8' })
    if (child.status !== 0) throw new Error(child.stderr)
    rows.push(JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}'))
  }
  console.log('| documents | response MB | peak RSS growth MB | peak heap growth MB |\n|---|---|---|---|')
  for (const r of rows) {
    console.log(`| ${r['size']} | ${(r['bytes']! / 2 ** 20).toFixed(1)} | ${r['rssGrowthMB']!.toFixed(1)} | ${r['heapGrowthMB']!.toFixed(1)} |`)
  }
}
