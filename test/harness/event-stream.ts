import { type ClientRequest, type IncomingMessage, request } from 'node:http'
import type { App } from './app.ts'

/** One server-sent event as a subscriber reads it. */
export interface SseEvent {
  event: string
  id: string
  // biome-ignore lint/suspicious/noExplicitAny: event data is arbitrary JSON, asserted field by field
  data: any
}

/**
 * A subscriber of `GET <prefix>/_events` over real HTTP (an event stream never ends, so `inject`,
 * which waits for the end, cannot read one): events parsed as they arrive, `next()` waiting for the
 * next one. `pause()` stops reading the socket, as a slow client does.
 */
export class EventStreamClient {
  readonly status: number
  readonly headers: IncomingMessage['headers']
  /** The whole text received so far (comments included). */
  text = ''
  readonly ended: Promise<void>
  readonly #response: IncomingMessage
  readonly #request: ClientRequest
  readonly #events: SseEvent[] = []
  readonly #waiters: ((event: SseEvent | undefined) => void)[] = []
  #buffer = ''
  #done = false

  private constructor(req: ClientRequest, response: IncomingMessage) {
    this.#request = req
    this.#response = response
    this.status = response.statusCode ?? 0
    this.headers = response.headers
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => this.#receive(chunk))
    this.ended = new Promise((resolve) => {
      const finish = () => {
        this.#done = true
        for (const waiter of this.#waiters.splice(0)) waiter(undefined)
        resolve()
      }
      response.once('end', finish)
      response.once('close', finish)
      response.once('error', finish)
    })
  }

  /** Opens a stream; resolves once the status and headers are in. */
  static open(app: App, path: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
    const address = app.server.address()
    if (address === null || typeof address === 'string') throw new Error('the app must listen on a port')
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: address.port, path, headers: { accept: 'text/event-stream', ...headers } }, (response) => resolve(new EventStreamClient(req, response)))
      req.on('error', reject)
      req.end()
    })
  }

  /** The next event; undefined once the stream has ended. */
  next(): Promise<SseEvent | undefined> {
    const ready = this.#events.shift()
    if (ready) return Promise.resolve(ready)
    if (this.#done) return Promise.resolve(undefined)
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  async take(count: number): Promise<SseEvent[]> {
    const events: SseEvent[] = []
    for (let i = 0; i < count; i++) {
      const event = await this.next()
      if (event === undefined) throw new Error(`the stream ended after ${events.length} of ${count} events`)
      events.push(event)
    }
    return events
  }

  /** Events already received and not taken. */
  get pending(): number {
    return this.#events.length
  }

  pause(): void {
    this.#response.pause()
  }

  /** Reads again: what the server sent before it dropped a paused subscriber, then the end. */
  resume(): void {
    this.#response.resume()
  }

  close(): void {
    this.#request.destroy()
  }

  #receive(chunk: string): void {
    this.text += chunk
    this.#buffer += chunk
    for (let cut = this.#buffer.indexOf('\n\n'); cut >= 0; cut = this.#buffer.indexOf('\n\n')) {
      const block = this.#buffer.slice(0, cut)
      this.#buffer = this.#buffer.slice(cut + 2)
      const event = parseBlock(block)
      if (event === undefined) continue
      const waiter = this.#waiters.shift()
      if (waiter) waiter(event)
      else this.#events.push(event)
    }
  }
}

function parseBlock(block: string): SseEvent | undefined {
  const fields: Record<string, string> = {}
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue
    const colon = line.indexOf(':')
    fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart()
  }
  if (fields['data'] === undefined) return undefined
  return { event: fields['event'] ?? 'message', id: fields['id'] ?? '', data: JSON.parse(fields['data']) }
}
