// The floor of bench/start.ts: a bare Fastify server, one route answering a fixed JSON, started by
// plain node (no tsx), as `fastify-mongo-crud serve` is. Prints `LISTENING <url>` once ready.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/', async () => ({ hello: 'world' }))
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.once('SIGTERM', () => {
  void app.close().finally(() => process.exit(0))
})
console.log(`LISTENING ${url}`)
