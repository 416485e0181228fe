import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import type { Json } from './seed.ts'

export const OBJECT_ID = /^[0-9a-f]{24}$/

/** A valid ObjectId that no test ever creates. */
export const ABSENT_ID = 'ffffffffffffffffffffffff'

function assertJson(res: LightMyRequestResponse): Json {
  assert.notEqual(res.statusCode, 500, `unexpected 500: ${res.body}`)
  assert.match(String(res.headers['content-type']), /^application\/json/, `not JSON: ${res.body}`)
  return res.json()
}

/** The answer is exactly `status` with body `{ "detail": detail }`. */
export function expectDetail(res: LightMyRequestResponse, status: number, detail: string): void {
  const body = assertJson(res)
  assert.deepEqual({ status: res.statusCode, body }, { status, body: { detail } })
}

/** The answer is `status` with a `detail` that mentions `word` (a string, or validation entries naming it). */
export function expectDetailMentioning(res: LightMyRequestResponse, status: number, word: string): void {
  const body = assertJson(res)
  assert.equal(res.statusCode, status, res.body)
  assert.ok(body.detail !== undefined, `no detail in ${res.body}`)
  assert.ok(JSON.stringify(body.detail).includes(word), `detail does not mention ${word}: ${res.body}`)
}

export interface ValidationEntry {
  loc: (string | number)[]
  msg: string
  type: string
}

/** 422 with `detail` a non-empty array of `{ loc, msg, type }` whose `loc` starts with `"body"`; returns the entries. */
export function expectBodyValidationError(res: LightMyRequestResponse): ValidationEntry[] {
  const body = assertJson(res)
  assert.equal(res.statusCode, 422, res.body)
  assert.ok(Array.isArray(body.detail), `detail is not an array: ${res.body}`)
  assert.ok(body.detail.length > 0, `detail is empty: ${res.body}`)
  for (const entry of body.detail) {
    assert.ok(Array.isArray(entry.loc), `loc is not an array: ${JSON.stringify(entry)}`)
    assert.equal(entry.loc[0], 'body', `loc does not start with "body": ${JSON.stringify(entry)}`)
    assert.equal(typeof entry.msg, 'string', JSON.stringify(entry))
    assert.equal(typeof entry.type, 'string', JSON.stringify(entry))
  }
  return body.detail
}

/** The validation entries include one located exactly at `loc`. */
export function expectEntryAt(entries: ValidationEntry[], loc: (string | number)[]): void {
  assert.ok(
    entries.some((entry) => JSON.stringify(entry.loc) === JSON.stringify(loc)),
    `no entry at ${JSON.stringify(loc)} in ${JSON.stringify(entries)}`,
  )
}
