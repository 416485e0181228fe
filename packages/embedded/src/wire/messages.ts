import { decodeReceived } from '../bson/bson-codec.js'
import type { Document } from '../document.js'
import { encodeReplyBody } from './stored-batch-reply.js'
import { invalidBson, protocolError } from './wire-error.js'

const OP_REPLY = 1
export const OP_QUERY = 2004
export const OP_COMPRESSED = 2012
export const OP_MSG = 2013
export const HEADER_BYTES = 16

const CHECKSUM_PRESENT = 1 << 0
const MORE_TO_COME = 1 << 1
/** An optional bit: the client takes several replies to this request (an awaitable `hello`). */
const EXHAUST_ALLOWED = 1 << 16
/** Bits 0-15 are "required": a flag the server does not know there must be refused. */
const KNOWN_REQUIRED = CHECKSUM_PRESENT | MORE_TO_COME

interface Header {
  length: number
  requestId: number
  responseTo: number
  opCode: number
}

/** A request as the command layer sees it, whatever opcode carried it. */
export interface Request {
  header: Header
  command: Document
  /** The database of the command: `$db` (OP_MSG) or the `<db>.$cmd` namespace (OP_QUERY). */
  db: string
  /** OP_MSG with `moreToCome`: the client expects no reply. */
  moreToCome: boolean
  /** OP_MSG with `exhaustAllowed`: the client reads every reply sent with `moreToCome` until one comes without. */
  exhaustAllowed: boolean
}

/** Marks a reply whose request, when its client allows it, is answered again and again (`streamReplies`). */
const STREAMED = Symbol('streamed')

/** The command asks to be run again once this reply is sent, its next reply streamed to the client unasked (exhaust). */
export function streamReplies(reply: Document): void {
  ;(reply as Record<symbol, unknown>)[STREAMED] = true
}

export function isStreamed(reply: Document): boolean {
  return (reply as Record<symbol, unknown>)[STREAMED] === true
}

export function readHeader(frame: Buffer): Header {
  return { length: frame.readInt32LE(0), requestId: frame.readInt32LE(4), responseTo: frame.readInt32LE(8), opCode: frame.readInt32LE(12) }
}

/** A document of the message, its numbers held apart by BSON type as the engine holds them (numeric-type.ts). */
function readDocument(frame: Buffer, offset: number, end: number): [Document, number] {
  if (offset + 5 > end) throw invalidBson('truncated BSON document')
  const size = frame.readInt32LE(offset)
  if (size < 5 || offset + size > end) throw invalidBson(`BSON document size ${size} does not fit the message`)
  try {
    return [decodeReceived(frame.subarray(offset, offset + size)), offset + size]
  } catch (error) {
    throw invalidBson((error as Error).message)
  }
}

function readCString(frame: Buffer, offset: number, end: number): [string, number] {
  const zero = frame.indexOf(0, offset)
  if (zero < 0 || zero >= end) throw protocolError('unterminated string in message')
  return [frame.toString('utf8', offset, zero), zero + 1]
}

/**
 * OP_MSG: flag bits, then sections. Kind 0 is the command body; each kind 1 section is a
 * document sequence (e.g. `documents` of an insert) merged into the body under its identifier.
 * A checksum is tolerated (and not verified: TCP on loopback already checks integrity).
 */
export function parseOpMsg(frame: Buffer, header: Header): Request {
  const flags = frame.readUInt32LE(HEADER_BYTES)
  const required = flags & 0xffff
  if ((required & ~KNOWN_REQUIRED) !== 0) throw protocolError(`Unrecognized required flag bits in OP_MSG: ${required.toString(2)}`)
  const end = frame.length - (flags & CHECKSUM_PRESENT ? 4 : 0)
  let body: Document | undefined
  const sequences: [string, Document[]][] = []
  let offset = HEADER_BYTES + 4
  while (offset < end) {
    const kind = frame.readUInt8(offset++)
    if (kind === 0) {
      if (body) throw protocolError('OP_MSG has more than one body section')
      ;[body, offset] = readDocument(frame, offset, end)
    } else if (kind === 1) {
      if (offset + 4 > end) throw protocolError('truncated OP_MSG document sequence')
      const sectionEnd = offset + frame.readInt32LE(offset)
      if (sectionEnd > end || sectionEnd < offset + 5) throw protocolError('OP_MSG document sequence does not fit the message')
      let [identifier, at] = readCString(frame, offset + 4, sectionEnd)
      const docs: Document[] = []
      while (at < sectionEnd) {
        const [doc, next] = readDocument(frame, at, sectionEnd)
        docs.push(doc)
        at = next
      }
      sequences.push([identifier, docs])
      offset = sectionEnd
    } else {
      throw protocolError(`Unknown OP_MSG section kind ${kind}`)
    }
  }
  if (!body) throw protocolError('OP_MSG has no body section')
  for (const [identifier, docs] of sequences) {
    if (Object.hasOwn(body, identifier)) throw protocolError(`Duplicate field '${identifier}' in OP_MSG body and document sequence`)
    body[identifier] = docs
  }
  const db = body['$db']
  if (typeof db !== 'string' || db === '') throw protocolError('OP_MSG command has no $db')
  return { header, command: body, db, moreToCome: (flags & MORE_TO_COME) !== 0, exhaustAllowed: (flags & EXHAUST_ALLOWED) !== 0 }
}

/** OP_QUERY: only commands on `<db>.$cmd` (the legacy handshake); `$query` wrappers unwrapped. */
export function parseOpQuery(frame: Buffer, header: Header): Request {
  const [namespace, afterName] = readCString(frame, HEADER_BYTES + 4, frame.length)
  let [query] = readDocument(frame, afterName + 8, frame.length)
  if (typeof query['$query'] === 'object' && query['$query'] !== null) query = query['$query'] as Document
  const db = namespace.endsWith('.$cmd') ? namespace.slice(0, -'.$cmd'.length) : ''
  return { header, command: query, db, moreToCome: false, exhaustAllowed: false }
}

let nextRequestId = 1

function header(length: number, responseTo: number, opCode: number): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES)
  out.writeInt32LE(length, 0)
  out.writeInt32LE(nextRequestId, 4)
  nextRequestId = (nextRequestId % 0x7fffffff) + 1
  out.writeInt32LE(responseTo, 8)
  out.writeInt32LE(opCode, 12)
  return out
}

/** A reply to OP_MSG: its flags (`moreToCome` when more replies follow unasked) and one body section. */
export function encodeOpMsg(reply: Document, responseTo: number, moreToCome = false): Buffer {
  const body = encodeReplyBody(reply)
  const prefix = Buffer.alloc(5)
  if (moreToCome) prefix.writeUInt32LE(MORE_TO_COME, 0)
  return Buffer.concat([header(HEADER_BYTES + 5 + body.length, responseTo, OP_MSG), prefix, body])
}

/** A reply to OP_QUERY: OP_REPLY with one document, cursor id 0. */
export function encodeOpReply(reply: Document, responseTo: number): Buffer {
  const body = encodeReplyBody(reply)
  const fields = Buffer.alloc(20)
  fields.writeInt32LE(1, 16)
  return Buffer.concat([header(HEADER_BYTES + 20 + body.length, responseTo, OP_REPLY), fields, body])
}
