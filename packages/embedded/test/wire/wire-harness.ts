import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { after, before } from 'node:test'
import { BSON, MongoClient, type MongoClientOptions } from 'mongodb'
import { type Document, type EmbeddedDb, openEmbedded, startWireServer, type WireServer, type WireServerOptions } from '../../src/index.ts'

export interface WireFixture {
  engine: EmbeddedDb
  server: WireServer
  client: MongoClient
}

/** A fresh in-memory engine, its wire server and a connected MongoClient, for one describe. */
export function useWireServer(options: WireServerOptions = {}, clientOptions: MongoClientOptions = {}): () => WireFixture {
  let fixture: WireFixture | undefined
  before(async () => {
    const engine = await openEmbedded()
    const server = await startWireServer(engine, options)
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 60_000, ...clientOptions })
    await client.connect()
    fixture = { engine, server, client }
  })
  after(async () => {
    await fixture?.client.close()
    await fixture?.server.close()
    await fixture?.engine.close()
  })
  return () => {
    if (!fixture) throw new Error('wire server not started yet')
    return fixture
  }
}

const OP_MSG = 2013
let requestId = 1000

/** An OP_MSG frame: `body` as section 0, then one kind-1 section per entry of `sequences`. */
export function opMsg(body: Document, options: { flags?: number, sequences?: Record<string, Document[]>, checksum?: boolean } = {}): Buffer {
  const parts: Buffer[] = [Buffer.from([0]), Buffer.from(BSON.serialize(body))]
  for (const [identifier, docs] of Object.entries(options.sequences ?? {})) {
    const payload = Buffer.concat([Buffer.from(`${identifier}\0`), ...docs.map((d) => Buffer.from(BSON.serialize(d)))])
    const size = Buffer.alloc(4)
    size.writeInt32LE(payload.length + 4)
    parts.push(Buffer.from([1]), size, payload)
  }
  const flags = Buffer.alloc(4)
  flags.writeUInt32LE((options.flags ?? 0) | (options.checksum ? 1 : 0))
  if (options.checksum) parts.push(Buffer.alloc(4))
  return frame(OP_MSG, Buffer.concat([flags, ...parts]))
}

/** A legacy OP_QUERY frame on `<ns>`. */
export function opQuery(ns: string, query: Document): Buffer {
  const head = Buffer.alloc(4)
  const counts = Buffer.alloc(8)
  counts.writeInt32LE(-1, 4)
  return frame(2004, Buffer.concat([head, Buffer.from(`${ns}\0`), counts, Buffer.from(BSON.serialize(query))]))
}

export function frame(opCode: number, body: Buffer): Buffer {
  const header = Buffer.alloc(16)
  header.writeInt32LE(16 + body.length, 0)
  header.writeInt32LE(requestId++, 4)
  header.writeInt32LE(opCode, 12)
  return Buffer.concat([header, body])
}

/** A raw TCP client that reads whole reply frames. */
export class RawClient {
  readonly socket: Socket
  #buffer = Buffer.alloc(0)
  #waiters: (() => void)[] = []
  closed: Promise<void>

  private constructor(socket: Socket) {
    this.socket = socket
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk])
      for (const wake of this.#waiters.splice(0)) wake()
    })
    socket.on('error', () => undefined)
    socket.on('end', () => {
      for (const wake of this.#waiters.splice(0)) wake()
    })
    this.closed = new Promise((resolve) => socket.once('close', () => {
      for (const wake of this.#waiters.splice(0)) wake()
      resolve()
    }))
  }

  static async open(server: WireServer): Promise<RawClient> {
    const socket = connect(server.port, server.host)
    await once(socket, 'connect')
    return new RawClient(socket)
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes)
  }

  /** The next reply: opCode, responseTo, its flags (OP_MSG's; 0 for OP_REPLY) and its first document; undefined if the server closed first. */
  async reply(): Promise<{ opCode: number, responseTo: number, flags: number, doc: Document } | undefined> {
    for (;;) {
      if (this.#buffer.length >= 4) {
        const length = this.#buffer.readInt32LE(0)
        if (this.#buffer.length >= length) {
          const bytes = this.#buffer.subarray(0, length)
          this.#buffer = this.#buffer.subarray(length)
          const opCode = bytes.readInt32LE(12)
          const docStart = opCode === 1 ? 36 : 21
          const flags = opCode === OP_MSG ? bytes.readUInt32LE(16) : 0
          return { opCode, responseTo: bytes.readInt32LE(8), flags, doc: BSON.deserialize(bytes.subarray(docStart)) }
        }
      }
      if (this.socket.destroyed || this.socket.readableEnded) return undefined
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }

  async command(body: Document): Promise<Document> {
    this.send(opMsg({ ...body, $db: 'test' }))
    const reply = await this.reply()
    if (!reply) throw new Error('connection closed before the reply')
    return reply.doc
  }

  close(): void {
    this.socket.destroy()
  }
}
