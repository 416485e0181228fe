import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Answers the requests Node's HTTP parser refuses before Fastify sees them (headers or URL beyond
 * `maxHeaderSize`: 431, a request that timed out: 408, anything malformed: 400) in the library's error
 * format, `{ "detail": ... }`, where Fastify's default answers `{ error, message, statusCode }`.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer (as in Fastify's default handler).
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, detail] = describeClientError(error.code)
  const body = JSON.stringify({ detail })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`
    )
  }
  socket.destroy(error)
}

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
