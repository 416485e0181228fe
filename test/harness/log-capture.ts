import { Writable } from 'node:stream'
import type { Json } from './seed.ts'

/** A stream to give Fastify's logger (`logger: { stream }`), keeping every JSON log line for assertions. */
export function logCapture(): { stream: Writable, lines: Json[], warnings: () => Json[] } {
  const lines: Json[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  return { stream, lines, warnings: () => lines.filter((line) => line.level === 40) }
}
