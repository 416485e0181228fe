const OPEN = Buffer.from('[')
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']')

/**
 * A JSON array's text gathered as bytes: `[`, the texts added comma-separated, `]` once ended; taken in
 * chunks as it goes. Each text is copied out as it is added. A serializer's text is a tree of
 * thousands of string pieces per document (several times its size in bytes); held until a chunk was
 * full, the trees outlived V8's young generation and piled up in the old one as garbage.
 */
export class ArrayBytes {
  #parts: Buffer[] = [OPEN]
  #bytes = OPEN.length
  #empty = true

  /** Bytes gathered since the last `take`. */
  get bytes(): number {
    return this.#bytes
  }

  add(text: string): void {
    if (!this.#empty) this.#push(COMMA)
    this.#empty = false
    this.#push(Buffer.from(text))
  }

  end(): void {
    this.#push(CLOSE)
  }

  /** The bytes gathered since the last `take`, as one buffer. */
  take(): Buffer {
    const chunk = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#bytes)
    this.#parts = []
    this.#bytes = 0
    return chunk
  }

  #push(part: Buffer): void {
    this.#parts.push(part)
    this.#bytes += part.length
  }
}
