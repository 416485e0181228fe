import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Answers the requests Node's HTTP parser refuses before Fastify sees them (headers or URL beyond
 * `maxHeaderSize`: 431, a request that timed out: 408, anything malformed: 400) in the library's error
 * format, `{ "detail": ... }`, where Fastify's default answers `{ error, message, statusCode }`.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer (as in Fastify's default handler); the parser may
  // also report each further chunk of a refused request: the first answer is the only one.
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return
  answered.add(socket)
  if (!socket.writable) {
    socket.destroy(error)
    return
  }
  const [status, detail] = describeClientError(error.code)
  const body = JSON.stringify({ detail })
  // Closing a socket whose client is still sending (a huge URL) resets the connection, and the client
  // may lose the answer before reading it. So: answer, half-close, drop what still arrives, and close
  // once the client has (or after LINGER_MS at the latest).
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`
  )
  socket.resume()
  setTimeout(() => socket.destroy(), LINGER_MS).unref()
}

/** Sockets already answered: the parser reports an error again for every chunk that follows. */
const answered = new WeakSet<Socket>()
/** How long a refused connection may keep sending before it is closed anyway. */
const LINGER_MS = 2000

function describeClientError(code: string | undefined): [status: number, detail: string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request header fields too large (the URL and headers exceed the size limit)']
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request timeout']
    default:
      return [400, 'Bad request: the HTTP request could not be parsed']
  }
}
