/**
 * The subscribers of bench/events.ts, in a process of their own (not the server's, not the writer's):
 * commands arrive as JSON lines on stdin, answers leave as JSON lines on stdout.
 * - `{ "open": n, "url": "<feed url>" }`: opens n `text/event-stream` connections, answers `{ "open": n }`.
 * - `{ "expect": events, "keep"?: true }`: forgets what was measured (unless `keep`); answers
 *   `{ "done": ... }` once every open subscriber has `events` more events (or at `{ "report": true }`,
 *   whatever arrived by then), with the delays of every event since the last reset.
 * - `{ "close": true }`: closes every connection, answers `{ "closed": true }`.
 * Each event's delay is its arrival time less the `at` its document carries (the writer's clock when it
 * sent the write: `performance.timeOrigin + performance.now()`, the same clock in every process).
 * Delays go into a histogram of 0.1 ms buckets (20 million events fit in 2.4 MB).
 */
import { type ClientRequest, request } from 'node:http'
import { createInterface } from 'node:readline'

const BUCKET_MS = 0.1
const BUCKETS = 600_000
const OPEN_AT_ONCE = 200

let histogram = new Uint32Array(BUCKETS)
let received = 0
let expected = Number.POSITIVE_INFINITY
let waiting: (() => void) | undefined
const connections: ClientRequest[] = []

const now = () => performance.timeOrigin + performance.now()
const answer = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)

function record(at: number): void {
  const bucket = Math.min(BUCKETS - 1, Math.max(0, Math.floor((now() - at) / BUCKET_MS)))
  histogram[bucket]!++
  if (++received >= expected) waiting?.()
}

/** One subscriber: reads its stream and records each event's delay (the `"at":` of its document, found without parsing the rest). */
function subscribe(url: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream' }, agent: false }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`subscribe: ${response.statusCode}`))
      response.setEncoding('utf8')
      let buffer = ''
      response.on('data', (chunk: string) => {
        buffer += chunk
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const event = buffer.slice(0, cut)
          buffer = buffer.slice(cut + 2)
          const at = event.indexOf('"at":')
          if (at >= 0) record(Number.parseFloat(event.slice(at + 5)))
        }
      })
      response.on('error', () => undefined)
      resolve()
    })
    req.on('error', reject)
    req.end()
    connections.push(req)
  })
}

function percentile(p: number): number {
  const rank = Math.ceil(received * p)
  let seen = 0
  for (let i = 0; i < BUCKETS; i++) {
    seen += histogram[i]!
    if (seen >= rank) return (i + 1) * BUCKET_MS
  }
  return Number.NaN
}

async function handle(command: { open?: number, url?: string, expect?: number, keep?: boolean, report?: boolean, close?: boolean }): Promise<void> {
  if (command.open !== undefined) {
    const url = new URL(command.url!)
    for (let opened = 0; opened < command.open; opened += OPEN_AT_ONCE) {
      await Promise.all(Array.from({ length: Math.min(OPEN_AT_ONCE, command.open - opened) }, () => subscribe(url)))
    }
    answer({ open: connections.length })
  } else if (command.expect !== undefined) {
    if (command.keep !== true) {
      histogram = new Uint32Array(BUCKETS)
      received = 0
    }
    expected = received + command.expect * connections.length
    const started = now()
    const done = new Promise<void>((resolve) => {
      waiting = resolve
    })
    if (expected === 0) waiting?.()
    await done
    waiting = undefined
    answer({ done: { received, seconds: (now() - started) / 1000, p50: percentile(0.5), p99: percentile(0.99), max: percentile(1) } })
  } else if (command.report) {
    waiting?.()
  } else if (command.close) {
    for (const req of connections.splice(0)) req.destroy()
    answer({ closed: true })
  }
}

for await (const line of createInterface({ input: process.stdin })) void handle(JSON.parse(line))
