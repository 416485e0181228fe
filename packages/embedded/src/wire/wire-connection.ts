import type { Socket } from 'node:net'
import type { Document } from '../index.js'
import { FrameReader } from './frame-reader.js'
import { encodeOpMsg, encodeOpReply, OP_COMPRESSED, OP_MSG, OP_QUERY, parseOpMsg, parseOpQuery, type Request, readHeader } from './messages.js'
import { toErrorReply } from './wire-error.js'

/** Runs one parsed request and returns its reply document. */
export type RequestHandler = (request: Request, connectionId: number) => Promise<Document>

/**
 * One client connection: frames the byte stream, runs its requests one at a time in arrival
 * order, and writes each reply. The socket is paused while a request runs, so a client sending
 * faster than the engine answers never makes the server buffer more than about one message.
 * Nothing a client sends can throw out of here: bad input answers an error or closes this
 * connection only.
 */
export class WireConnection {
  readonly id: number
  readonly #socket: Socket
  readonly #reader: FrameReader
  readonly #handle: RequestHandler
  readonly #maxMessageBytes: number
  #busy = false
  #closed = false

  constructor(socket: Socket, id: number, maxMessageBytes: number, handle: RequestHandler) {
    this.id = id
    this.#socket = socket
    this.#reader = new FrameReader(maxMessageBytes)
    this.#handle = handle
    this.#maxMessageBytes = maxMessageBytes
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      this.#reader.push(chunk)
      void this.#pump()
    })
    socket.on('error', () => this.#socket.destroy())
    socket.on('close', () => {
      this.#closed = true
    })
  }

  /** Resolves once the socket has closed. */
  get closed(): Promise<void> {
    return this.#closed ? Promise.resolve() : new Promise((resolve) => this.#socket.once('close', () => resolve()))
  }

  destroy(): void {
    this.#socket.destroy()
  }

  async #pump(): Promise<void> {
    if (this.#busy) return
    this.#busy = true
    this.#socket.pause()
    try {
      for (let frame = this.#reader.next(); frame !== undefined && !this.#closed; frame = this.#reader.next()) {
        if (frame.kind === 'invalid') {
          this.destroy()
          return
        }
        if (frame.kind === 'too-large') {
          const errmsg = `Message length ${frame.length} exceeds the maximum of ${this.#maxMessageBytes} bytes; closing the connection`
          const reply = { ok: 0, errmsg, code: 10334, codeName: 'BSONObjectTooLarge' }
          this.#socket.end(encodeOpMsg(reply, frame.requestId))
          return
        }
        await this.#process(frame.bytes)
      }
    } catch {
      // A bug in a handler must not take the server down; this connection alone is dropped.
      this.destroy()
    } finally {
      this.#busy = false
      if (!this.#closed) this.#socket.resume()
    }
  }

  async #process(bytes: Buffer): Promise<void> {
    const header = readHeader(bytes)
    if (header.opCode === OP_COMPRESSED) {
      const reply = { ok: 0, errmsg: 'OP_COMPRESSED is not supported: this server does not advertise compression', code: 2, codeName: 'BadValue' }
      this.#socket.end(encodeOpMsg(reply, header.requestId))
      return
    }
    if (header.opCode !== OP_MSG && header.opCode !== OP_QUERY) {
      this.destroy()
      return
    }
    const legacy = header.opCode === OP_QUERY
    let request: Request
    try {
      request = legacy ? parseOpQuery(bytes, header) : parseOpMsg(bytes, header)
    } catch (error) {
      this.#write(toErrorReply(error), header.requestId, legacy)
      return
    }
    const reply = await this.#handle(request, this.id)
    if (!request.moreToCome) this.#write(reply, header.requestId, legacy)
  }

  #write(reply: Document, responseTo: number, legacy: boolean): void {
    if (this.#closed || !this.#socket.writable) return
    const encode = legacy ? encodeOpReply : encodeOpMsg
    let bytes: Buffer
    try {
      bytes = encode(reply, responseTo)
    } catch (error) {
      bytes = encode(toErrorReply(error), responseTo)
    }
    this.#socket.write(bytes)
  }
}
