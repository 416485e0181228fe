import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { MongoModel, MongoModelOut, ObjectIdField, Type } from 'fastify-mongo-crud'
import type { App } from '../harness/app.ts'
import type { Json } from '../harness/seed.ts'

/**
 * Models and checks shared by the security suite. Every hidden value starts with `SECRET`, so a
 * response can be searched for any leak at once, whatever field or depth it came from.
 */
export const SECRET = 'SECRET'

/** An input model with hidden fields at the top level, inside a sub-object, and inside array items. */
export const Account = MongoModel('Account', {
  name: Type.String(),
  email: Type.String(),
  password: Type.String(),
  age: Type.Optional(Type.Integer()),
  tags: Type.Optional(Type.Array(Type.String())),
  profile: Type.Optional(Type.Object({ city: Type.String(), secret: Type.String() })),
  history: Type.Optional(Type.Array(Type.Object({ at: Type.Integer(), note: Type.String(), token: Type.String() }))),
  managerId: Type.Optional(ObjectIdField()),
  meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  extra: Type.Optional(Type.Any()),
})

/** Hides `password`, `profile.secret`, `history.token` and `extra`. */
export const AccountOut = MongoModelOut('AccountOut', {
  name: Type.String(),
  email: Type.String(),
  age: Type.Optional(Type.Integer()),
  tags: Type.Optional(Type.Array(Type.String())),
  profile: Type.Optional(Type.Object({ city: Type.String() })),
  history: Type.Optional(Type.Array(Type.Object({ at: Type.Integer(), note: Type.String() }))),
  managerId: Type.Optional(ObjectIdField()),
  meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
})

/** The top-level keys an AccountOut document may carry. */
export const ACCOUNT_OUT_KEYS = new Set(['id', 'name', 'email', 'age', 'tags', 'profile', 'history', 'managerId', 'meta'])

/** Hidden paths, each holding a `SECRET…` value in every seeded account. */
export const HIDDEN_PATHS = ['password', 'profile.secret', 'history.token', 'extra', 'extra.key'] as const

export function account(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    email: `${name}@example.com`,
    password: `${SECRET}-pw-${name}`,
    age: name.length * 7,
    tags: [name, 'member'],
    profile: { city: 'Oslo', secret: `${SECRET}-profile-${name}` },
    history: [{ at: 1, note: 'joined', token: `${SECRET}-token-${name}` }],
    meta: { plan: 'free', level: name.length },
    extra: { key: `${SECRET}-extra-${name}` },
    ...extra,
  }
}

/** The router most security tests attack: Account stored, AccountOut answered. */
export const accountsRouter = { model: Account, modelOut: AccountOut, collectionName: 'accounts', prefix: '/accounts' }

/**
 * An error answer as every error must be: not a 500, JSON, with a `detail`. Returns the body.
 */
export function expectErrorShape(res: LightMyRequestResponse): Json {
  assert.notEqual(res.statusCode, 500, `unexpected 500: ${res.body}`)
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `expected a 4xx, got ${res.statusCode}: ${res.body}`)
  assert.match(String(res.headers['content-type']), /^application\/json/, `not JSON: ${res.body}`)
  const body = res.json()
  assert.ok(body !== null && typeof body === 'object' && 'detail' in body, `no detail in ${res.body}`)
  return body
}

/** 422 with a `detail` mentioning `word` (when given). */
export function expectRefused(res: LightMyRequestResponse, word?: string): void {
  const body = expectErrorShape(res)
  assert.equal(res.statusCode, 422, res.body)
  if (word !== undefined) assert.ok(JSON.stringify(body.detail).includes(word), `detail does not mention ${word}: ${res.body}`)
}

/** No hidden value anywhere in the response body. */
export function expectNoSecret(res: LightMyRequestResponse): void {
  assert.ok(!res.body.includes(SECRET), `a hidden value leaked: ${res.body}`)
}

/** Object.prototype carries nothing a request could have planted. */
export function expectPrototypeClean(): void {
  const probe = {} as Record<string, unknown>
  for (const key of ['polluted', 'isAdmin', 'x']) {
    assert.equal(probe[key], undefined, `Object.prototype.${key} was planted`)
  }
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).filter((k) => ['polluted', 'isAdmin', 'x'].includes(k)), [])
}

/** GET `url` with `filters` sent verbatim (not re-encoded from an object, so raw JSON tricks survive). */
export function getWithRawFilters(app: App, url: string, raw: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url: `${url}?${new URLSearchParams({ filters: raw }).toString()}`, headers })
}

/** Sends `raw` as a JSON body, byte for byte. */
export function sendRawJson(app: App, method: 'POST' | 'PUT' | 'PATCH', url: string, raw: string) {
  return app.inject({ method, url, payload: raw, headers: { 'content-type': 'application/json' } })
}
