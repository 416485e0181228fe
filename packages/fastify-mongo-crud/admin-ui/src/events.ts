// The change feed (`<prefix>/_events`, docs/events.md) read with fetch and a stream reader, not EventSource:
// EventSource cannot send the Authorization header (or a gateway's headers). So this client does what
// EventSource does itself: parses the stream, keeps the last event's id and reconnects with Last-Event-ID.
import { errorOf, headersWith } from './api.js'

export interface FeedEvent {
  type: string
  id?: string
  data: string
}

export interface FeedHandlers {
  event(event: FeedEvent): void
  /** `live`, `connecting`, `ended` (told `end`, or refused) with a text to show. */
  status(state: 'live' | 'connecting' | 'ended', text: string): void
  /** The feed no longer keeps what came after the last event (410): reload what it showed. */
  gone(): void
}

/** Splits a text/event-stream into events (the WHATWG rules: `event`, `data`, `id`; comments ignored). */
export async function readEvents(body: ReadableStream<Uint8Array>, dispatch: (event: FeedEvent) => void): Promise<void> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let event: { type: string, id?: string, data: string[] } = { type: 'message', data: [] }
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffer += decoder.decode(value, { stream: true })
    const lines = buffer.split('\n')
    buffer = lines.pop() ?? ''
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
      if (line === '') {
        if (event.data.length > 0) dispatch({ type: event.type, data: event.data.join('\n'), ...(event.id === undefined ? {} : { id: event.id }) })
        event = { type: 'message', data: [] }
        continue
      }
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const name = colon === -1 ? line : line.slice(0, colon)
      const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (name === 'event') event.type = text
      else if (name === 'data') event.data.push(text)
      else if (name === 'id') event.id = text
    }
  }
}

const RECONNECT_MS = [500, 1_000, 2_000, 5_000, 10_000]

/** Subscribes to `url`; reconnects after a cut with the last event's id until `close()`. */
export function subscribe(url: string, handlers: FeedHandlers): { close(): void } {
  let lastEventId: string | undefined
  let closed = false
  let attempt = 0
  let controller: AbortController | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  const retry = (ms: number) => {
    handlers.status('connecting', `Reconnecting in ${Math.ceil(ms / 1000)} s`)
    timer = setTimeout(() => void connect(), ms)
  }
  const connect = async () => {
    controller = new AbortController()
    const headers = headersWith({ accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) })
    try {
      const response = await fetch(url, { headers, signal: controller.signal, cache: 'no-store' })
      if (response.status === 410) {
        lastEventId = undefined
        handlers.gone()
        return retry(0)
      }
      if (!response.ok || response.body === null) {
        const { text } = await errorOf(response)
        if (response.status === 503) return retry(Number(response.headers.get('retry-after') ?? 5) * 1000)
        return handlers.status('ended', `Live updates unavailable: ${text}`)
      }
      attempt = 0
      handlers.status('live', 'Live')
      await readEvents(response.body, (event) => {
        if (event.id !== undefined) lastEventId = event.id
        if (event.type !== 'end') return handlers.event(event)
        closed = true
        controller?.abort()
        handlers.status('ended', `Live updates ended: ${(JSON.parse(event.data) as { reason?: string }).reason ?? 'the server ended them'}`)
      })
    } catch {
      // A cut connection, or close(): the loop below decides.
    }
    if (!closed) retry(RECONNECT_MS[Math.min(attempt++, RECONNECT_MS.length - 1)]!)
  }
  handlers.status('connecting', 'Connecting')
  void connect()
  return {
    close() {
      closed = true
      clearTimeout(timer)
      controller?.abort()
    },
  }
}
