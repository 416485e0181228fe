import type { Document } from '../document.js'

/**
 * A command's write concern against the single-member replica set: `w: 1`, `w: "majority"` (that one
 * member) and `w: 0` are met as soon as the command is done; a number above 1 can never be (the
 * reply of the command, which ran, gets the writeConcernError UnsatisfiableWriteConcern, 100, as
 * mongod's), nor a tag set name the configuration does not define (UnknownReplWriteConcern, 79).
 */
export function withWriteConcernCheck(reply: Document, command: Document): Document {
  const concern = command['writeConcern'] as Document | undefined
  if (reply['ok'] !== 1 || reply['writeConcernError'] !== undefined || typeof concern !== 'object' || concern === null) return reply
  const w = concern['w']
  const count = typeof w === 'number' || typeof w === 'bigint' || (typeof w === 'object' && w !== null) ? Number(w) : undefined
  if (count !== undefined && count > 1) {
    return { ...reply, writeConcernError: { code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes', errInfo: { writeConcern: concern } } }
  }
  if (typeof w === 'string' && w !== 'majority') {
    return { ...reply, writeConcernError: { code: 79, codeName: 'UnknownReplWriteConcern', errmsg: `No write concern mode named '${w}' found in replica set configuration`, errInfo: { writeConcern: concern } } }
  }
  return reply
}
