import { HEADER_BYTES } from './messages.js'

/** What the next bytes of a connection hold. */
type Frame =
  | { kind: 'message', bytes: Buffer }
  /** A header announcing more than the limit: answer it, then close the connection. */
  | { kind: 'too-large', length: number, requestId: number }
  /** A length no MongoDB message can have: the stream is garbage; close the connection. */
  | { kind: 'invalid', length: number }

/**
 * Cuts a TCP byte stream into wire messages. Chunks are kept as received and joined once per
 * message, so a large message arriving in many chunks is copied once, not once per chunk.
 */
export class FrameReader {
  readonly #maxBytes: number
  #chunks: Buffer[] = []
  #buffered = 0

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#buffered += chunk.length
  }

  /** Bytes received and not yet returned as a message. */
  get buffered(): number {
    return this.#buffered
  }

  /** Forgets every byte received (the connection is closing). */
  clear(): void {
    this.#chunks = []
    this.#buffered = 0
  }

  /** The next complete frame, or undefined until more bytes arrive. */
  next(): Frame | undefined {
    if (this.#buffered < 4) return undefined
    const length = this.#peek(4).readInt32LE(0)
    if (length < HEADER_BYTES) return { kind: 'invalid', length }
    if (length > this.#maxBytes) {
      if (this.#buffered < 8) return undefined
      return { kind: 'too-large', length, requestId: this.#peek(8).readInt32LE(4) }
    }
    if (this.#buffered < length) return undefined
    return { kind: 'message', bytes: this.#take(length) }
  }

  #peek(bytes: number): Buffer {
    const first = this.#chunks[0]!
    if (first.length >= bytes) return first
    const joined = Buffer.concat(this.#chunks)
    this.#chunks = [joined]
    return joined
  }

  #take(bytes: number): Buffer {
    const joined = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks)
    const message = joined.subarray(0, bytes)
    const rest = joined.subarray(bytes)
    this.#chunks = rest.length > 0 ? [rest] : []
    this.#buffered -= bytes
    return message
  }
}
