import type { Socket } from 'node:net'
import { TLSSocket } from 'node:tls'
import type { Document } from '../document.js'
import type { BufferBudget, BufferHolder } from './buffer-budget.js'
import { FrameReader } from './frame-reader.js'
import { encodeOpMsg, encodeOpReply, isStreamed, OP_COMPRESSED, OP_MSG, OP_QUERY, parseOpMsg, parseOpQuery, type Request, readHeader } from './messages.js'
import { toErrorReply } from './wire-error.js'

/** Runs one parsed request and returns its reply document. */
type RequestHandler = (request: Request, connectionId: number) => Promise<Document>

/** Why the server closed a connection to protect the others. */
export type DropReason = 'max-buffered-bytes' | 'partial-message-timeout'

interface ConnectionLimits {
  /** Largest message accepted, in bytes. */
  maxMessageBytes: number
  /** The bytes all connections may hold in unfinished messages, shared. */
  budget: BufferBudget
  /** How long a message may take to arrive once its first byte has; 0: no limit. */
  partialMessageTimeoutMS: number
  /** Told when this connection is closed by a limit (and why), before the socket closes. */
  onDrop(reason: DropReason, heldBytes: number): void
}

/**
 * One client connection: frames the byte stream, runs its requests one at a time in arrival
 * order, and writes each reply. The socket is paused while a request runs, so a client sending
 * faster than the engine answers never makes the server buffer more than about one message.
 * The bytes of unfinished messages count against the server's shared budget, and a message that
 * takes too long to arrive closes its connection (a slow sender holds memory for as long as it
 * likes otherwise). Nothing a client sends can throw out of here: bad input answers an error or
 * closes this connection only.
 */
export class WireConnection implements BufferHolder {
  readonly id: number
  readonly #socket: Socket
  readonly #reader: FrameReader
  readonly #handle: RequestHandler
  readonly #limits: ConnectionLimits
  #busy = false
  #closed = false
  /** Set once the connection stops reading (closing, or answered a too-large message). */
  #discarding = false
  /** Armed while an unfinished message waits for its remaining bytes. */
  #partialTimer: NodeJS.Timeout | undefined

  constructor(socket: Socket, id: number, limits: ConnectionLimits, handle: RequestHandler) {
    this.id = id
    this.#socket = socket
    this.#reader = new FrameReader(limits.maxMessageBytes)
    this.#handle = handle
    this.#limits = limits
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => this.#receive(chunk))
    socket.on('error', () => this.#socket.destroy())
    socket.on('close', () => {
      this.#closed = true
      this.#stopReading()
    })
  }

  /** Resolves once the socket has closed. */
  get closed(): Promise<void> {
    return this.#closed ? Promise.resolve() : new Promise((resolve) => this.#socket.once('close', () => resolve()))
  }

  destroy(): void {
    this.#stopReading()
    this.#socket.destroy()
  }

  /** Closes at once with a reset (RST) rather than a FIN: what the server does to every connection when it stops (WireServer.close). */
  reset(): void {
    this.#stopReading()
    // Node resets only a plain TCP socket: a TLS one (its handle is TLS's) is closed the ordinary way.
    // So is one whose client already closed (its FIN read, ours on the way): libuv refuses to reset a
    // socket being shut down (EINVAL), and that socket would then never emit 'close', nor close() end.
    if (this.#socket instanceof TLSSocket || this.#socket.writableEnded) this.#socket.destroy()
    else this.#socket.resetAndDestroy()
  }

  /** The budget took this connection's bytes back: close it. */
  evict(): void {
    this.#drop('max-buffered-bytes')
  }

  #receive(chunk: Buffer): void {
    if (this.#discarding) return
    if (!this.#limits.budget.reserve(this, chunk.length)) {
      this.#drop('max-buffered-bytes')
      return
    }
    this.#reader.push(chunk)
    if (this.#partialTimer === undefined && !this.#busy) this.#armPartialTimer()
    void this.#pump()
  }

  #drop(reason: DropReason): void {
    if (this.#discarding) return
    this.#limits.onDrop(reason, this.#reader.buffered)
    this.destroy()
  }

  /** Forgets the unread bytes, gives them back to the budget, and ignores any that follow. */
  #stopReading(): void {
    this.#discarding = true
    this.#clearPartialTimer()
    this.#reader.clear()
    this.#limits.budget.drop(this)
  }

  #armPartialTimer(): void {
    const ms = this.#limits.partialMessageTimeoutMS
    if (ms === 0 || this.#reader.buffered === 0 || this.#discarding) return
    this.#partialTimer = setTimeout(() => {
      this.#partialTimer = undefined
      this.#drop('partial-message-timeout')
    }, ms)
    this.#partialTimer.unref()
  }

  #clearPartialTimer(): void {
    clearTimeout(this.#partialTimer)
    this.#partialTimer = undefined
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
          const errmsg = `Message length ${frame.length} exceeds the maximum of ${this.#limits.maxMessageBytes} bytes; closing the connection`
          const reply = { ok: 0, errmsg, code: 10334, codeName: 'BSONObjectTooLarge' }
          // The rest of that message is never read: its bytes would only fill the budget.
          this.#stopReading()
          this.#socket.end(encodeOpMsg(reply, frame.requestId))
          return
        }
        // The message is whole: its time limit ends; the next one's starts when this one is answered.
        this.#clearPartialTimer()
        this.#limits.budget.release(this, frame.bytes.length)
        await this.#process(frame.bytes)
      }
    } catch {
      // A bug in a handler must not take the server down; this connection alone is dropped.
      this.destroy()
    } finally {
      this.#busy = false
      if (!this.#closed && !this.#discarding) {
        if (this.#partialTimer === undefined) this.#armPartialTimer()
        this.#socket.resume()
      }
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
    let reply = await this.#handle(request, this.id)
    // Exhaust: the request runs again and again, each reply sent unasked, until the connection closes
    // or a reply does not ask for it (the command decides; an awaitable hello waits between them).
    while (request.exhaustAllowed && isStreamed(reply) && !this.#closed) {
      this.#write(reply, header.requestId, legacy, true)
      reply = await this.#handle(request, this.id)
    }
    if (!request.moreToCome) this.#write(reply, header.requestId, legacy)
  }

  #write(reply: Document, responseTo: number, legacy: boolean, moreToCome = false): void {
    if (this.#closed || !this.#socket.writable) return
    const encode = legacy ? encodeOpReply : (document: Document, to: number) => encodeOpMsg(document, to, moreToCome)
    let bytes: Buffer
    try {
      bytes = encode(reply, responseTo)
    } catch (error) {
      bytes = encode(toErrorReply(error), responseTo)
    }
    this.#socket.write(bytes)
  }
}
