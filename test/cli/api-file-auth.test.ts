import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { buildApiApp, parseApiFile } from 'fastify-mongo-crud/api-file'
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose'
import type { App } from '../harness/app.ts'

const SECRET = 'a-test-secret-of-more-than-32-bytes-for-hs256'
const secretKey = new TextEncoder().encode(SECRET)
const NOW = () => Math.floor(Date.now() / 1000)

const NOTE = { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string' } }, required: ['title', 'owner'] }

/** Notes scoped by the token's `sub`, deleted by admins (a `role` claim, or one of `roles`), readable by anyone signed in. */
const api = (auth: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  title: 'Notes',
  auth: { type: 'jwt', ...auth },
  models: { Note: NOTE, Tag: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
  routers: {
    notes: {
      prefix: '/notes',
      collection: 'notes',
      model: 'Note',
      embeds: [{ name: 'tags', model: 'Tag' }],
      scope: { field: 'owner', claim: 'sub' },
      guards: { deleteOne: [{ claim: 'role', equals: 'admin' }] },
    },
    staff: {
      prefix: '/staff',
      collection: 'notes',
      model: 'Note',
      guards: { getAll: [{ claim: 'roles', equals: ['admin', 'auditor'] }], updateOne: [{ claim: 'email_verified', equals: 'true' }], deleteOne: [{ claim: 'tenant' }] },
    },
  },
  ...extra,
})

async function build(db: EmbeddedDb, file: unknown, env: NodeJS.ProcessEnv = { JWT_SECRET: SECRET }, dir?: string): Promise<App> {
  const loaded = parseApiFile(JSON.stringify(file, null, 2), 'api.json', dir)
  return (await buildApiApp(loaded, db, { env, fastify: { logger: false } })) as unknown as App
}

const hs256 = (claims: JWTPayload, key: Uint8Array = secretKey) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(key)
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe('API file auth: a JWT verified as PostgREST does, its claims read by scopes and guards', () => {
  let db: EmbeddedDb
  before(async () => {
    db = await openEmbedded()
  })
  after(async () => {
    await db.close()
  })

  describe('HS256, the secret from the environment', () => {
    let app: App
    before(async () => {
      app = await build(db, api({ secretEnv: 'JWT_SECRET', issuer: 'https://auth.example.com', audience: 'notes-api' }))
    })
    after(async () => {
      await app.close()
    })
    const claims = (sub: string, more: JWTPayload = {}) => ({ sub, iss: 'https://auth.example.com', aud: 'notes-api', ...more })

    it('a request without a token is 401 with WWW-Authenticate: Bearer (no error code, RFC 6750) and a detail', async () => {
      for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }, { authorization: 'Bearer' }]) {
        const res = await app.inject({ url: '/notes', headers })
        assert.equal(res.statusCode, 401)
        assert.equal(res.headers['www-authenticate'], 'Bearer')
        assert.match(res.json().detail, /^Authentication required: send a token in the Authorization header/)
      }
    })

    it('an expired, forged, unsigned, malformed or foreign token is 401 with error="invalid_token" and what is wrong', async () => {
      const expired = await new SignJWT(claims('alice')).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(NOW() - 3600).sign(secretKey)
      const forged = await hs256(claims('alice'), new TextEncoder().encode('another-secret-of-more-than-32-bytes!!'))
      const unsigned = new UnsecuredJWT(claims('alice')).encode()
      const otherIssuer = await hs256(claims('alice', { iss: 'https://evil.example.com' }))
      const noAudience = await hs256({ sub: 'alice', iss: 'https://auth.example.com' })
      const cases: Array<[string, string]> = [
        [expired, 'The token expired'],
        [forged, "The token's signature does not verify"],
        [unsigned, "The token's algorithm is not accepted"],
        ['not.a-token', 'The token is malformed'],
        [otherIssuer, "The token's 'iss' claim is not accepted"],
        [noAudience, "The token lacks the 'aud' claim"],
      ]
      for (const [token, detail] of cases) {
        const res = await app.inject({ url: '/notes', headers: bearer(token) })
        assert.equal(res.statusCode, 401, detail)
        assert.deepEqual(res.json(), { detail })
        assert.equal(res.headers['www-authenticate'], `Bearer error="invalid_token", error_description="${detail}"`)
      }
    })

    it('scope by claim: each caller reaches only the documents whose owner is its sub; writes get it, and may not set another', async () => {
      const alice = bearer(await hs256(claims('alice')))
      const bob = bearer(await hs256(claims('bob')))
      const created = await app.inject({ method: 'POST', url: '/notes', headers: alice, payload: { title: 'mine' } })
      assert.equal(created.statusCode, 201)
      assert.equal(created.json().owner, 'alice')
      await app.inject({ method: 'POST', url: '/notes', headers: bob, payload: { title: 'bob1', owner: 'bob' } })
      assert.deepEqual((await app.inject({ url: '/notes', headers: alice })).json().map((n: { title: string }) => n.title), ['mine'])
      assert.deepEqual((await app.inject({ url: '/notes', headers: bob })).json().map((n: { title: string }) => n.title), ['bob1'])
      assert.equal((await app.inject({ url: `/notes/${created.json().id}`, headers: bob })).statusCode, 400, "another caller's note is missing")
      const planted = await app.inject({ method: 'POST', url: '/notes', headers: bob, payload: { title: 'x', owner: 'alice' } })
      assert.equal(planted.statusCode, 403)
    })

    it('a token without the scope claim is 403 with error="insufficient_scope"', async () => {
      const { sub: _, ...anonymous } = claims('alice')
      const res = await app.inject({ url: '/notes', headers: bearer(await hs256(anonymous)) })
      assert.equal(res.statusCode, 403)
      assert.equal(res.json().detail, "Refused: the token's 'sub' claim does not name a valid owner")
      assert.match(res.headers['www-authenticate'] as string, /^Bearer error="insufficient_scope", error_description="Refused: the token's 'sub' claim/)
    })

    it('a guard on a role claim: 403 without the role, the route runs with it; a list claim passes when one item is accepted', async () => {
      const owner = bearer(await hs256(claims('carol')))
      const note = (await app.inject({ method: 'POST', url: '/notes', headers: owner, payload: { title: 't' } })).json()
      const refused = await app.inject({ method: 'DELETE', url: `/notes/${note.id}`, headers: owner })
      assert.equal(refused.statusCode, 403)
      assert.deepEqual(refused.json(), { detail: "Refused: the token's 'role' claim does not allow this route" })
      assert.match(refused.headers['www-authenticate'] as string, /^Bearer error="insufficient_scope"/)
      const admin = bearer(await hs256(claims('carol', { role: 'admin' })))
      assert.equal((await app.inject({ method: 'DELETE', url: `/notes/${note.id}`, headers: admin })).statusCode, 204)
      assert.equal((await app.inject({ url: '/staff', headers: bearer(await hs256(claims('dan', { roles: ['reader'] }))) })).statusCode, 403)
      assert.equal((await app.inject({ url: '/staff', headers: bearer(await hs256(claims('dan', { roles: ['reader', 'auditor'] }))) })).statusCode, 200)
    })

    it('a guard compares a boolean or number claim as JSON writes it; a guard without equals needs the claim', async () => {
      const someone = bearer(await hs256(claims('gus')))
      const doc = (await app.inject({ method: 'POST', url: '/staff', headers: someone, payload: { title: 't', owner: 'gus' } })).json()
      const patch = async (more: JWTPayload) => (await app.inject({ method: 'PATCH', url: `/staff/${doc.id}`, headers: bearer(await hs256(claims('gus', more))), payload: { title: 'u' } })).statusCode
      assert.deepEqual([await patch({ email_verified: true }), await patch({ email_verified: false }), await patch({ email_verified: 'yes' })], [200, 403, 403])
      const remove = async (more: JWTPayload) => (await app.inject({ method: 'DELETE', url: `/staff/${doc.id}`, headers: bearer(await hs256(claims('gus', more))) })).statusCode
      const refused = await app.inject({ method: 'DELETE', url: `/staff/${doc.id}`, headers: someone })
      assert.equal(refused.json().detail, "Refused: this route requires a token with the 'tenant' claim")
      assert.deepEqual([await remove({ tenant: 7 }), refused.statusCode], [204, 403])
    })

    it('every route needs a valid token by default, guarded or not, child routes included', async () => {
      const alice = bearer(await hs256(claims('alice')))
      const note = (await app.inject({ method: 'POST', url: '/notes', headers: alice, payload: { title: 'tagged' } })).json()
      assert.equal((await app.inject({ method: 'POST', url: `/notes/${note.id}/tags`, payload: { label: 'x' } })).statusCode, 401)
      assert.equal((await app.inject({ method: 'POST', url: `/notes/${note.id}/tags`, headers: alice, payload: { label: 'x' } })).statusCode, 201)
      assert.equal((await app.inject({ url: `/notes/${note.id}/tags`, headers: bearer(await hs256(claims('bob'))) })).statusCode, 400, "another caller's parent is missing")
      assert.equal((await app.inject({ method: 'POST', url: '/staff', payload: { title: 't', owner: 'x' } })).statusCode, 401)
      assert.equal((await app.inject({ method: 'POST', url: '/staff', headers: bearer(await hs256(claims('x'))), payload: { title: 't', owner: 'x' } })).statusCode, 201)
    })

    it('OpenAPI: a bearerAuth http bearer JWT scheme, required by every route; the docs need no token', async () => {
      for (const path of ['/docs', '/redoc']) assert.equal((await app.inject(path)).statusCode, 200, path)
      const spec = (await app.inject('/openapi.json')).json()
      assert.deepEqual(spec.components.securitySchemes, { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } })
      for (const [path, item] of Object.entries(spec.paths as Record<string, Record<string, { security?: unknown }>>)) {
        for (const [method, operation] of Object.entries(item)) assert.deepEqual(operation.security, [{ bearerAuth: [] }], `${method} ${path}`)
      }
    })
  })

  it('required: false: only the routes a claim check guards need a token; a header guard beside a claim guard documents both schemes', async () => {
    const file = api({ secretEnv: 'JWT_SECRET', required: false })
    file.routers.staff.guards = { getAll: [{ claim: 'roles', equals: ['admin'] }], deleteOne: [{ header: 'x-key', equals: 'k' }] } as never
    const app = await build(db, file)
    try {
      assert.equal((await app.inject({ method: 'POST', url: '/staff', payload: { title: 't', owner: 'x' } })).statusCode, 201)
      assert.equal((await app.inject('/staff')).statusCode, 401)
      assert.equal((await app.inject({ url: '/staff', headers: bearer(await hs256({ roles: ['admin'] })) })).statusCode, 200)
      const spec = (await app.inject('/openapi.json')).json()
      assert.equal(spec.paths['/staff'].post.security, undefined)
      assert.deepEqual(spec.paths['/staff'].get.security, [{ bearerAuth: [] }])
      assert.deepEqual(spec.paths['/staff/{id}'].delete.security, [{ 'x-key': [] }])
    } finally {
      await app.close()
    }
  })

  describe('public keys from files next to the API file', () => {
    let dir: string
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fmc-auth-'))
    })
    after(async () => {
      await rm(dir, { recursive: true, force: true })
    })

    it('RS256 with a PEM public key: its tokens pass; an HS256 token signed with the public key as secret does not', async () => {
      const { publicKey, privateKey } = await generateKeyPair('RS256')
      const pem = await exportSPKI(publicKey)
      await writeFile(join(dir, 'public.pem'), pem)
      const app = await build(db, api({ publicKeyFile: 'public.pem' }), {}, dir)
      try {
        const token = await new SignJWT({ sub: 'erin' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(privateKey)
        assert.equal((await app.inject({ url: '/notes', headers: bearer(token) })).statusCode, 200)
        const confused = await hs256({ sub: 'erin' }, new TextEncoder().encode(pem))
        const res = await app.inject({ url: '/notes', headers: bearer(confused) })
        assert.equal(res.statusCode, 401)
        assert.equal(res.json().detail, "The token's algorithm is not accepted")
      } finally {
        await app.close()
      }
    })

    it('ES256 through a JWKS file: a token names its key by kid; a token of an unknown key is 401', async () => {
      const { publicKey, privateKey } = await generateKeyPair('ES256')
      const other = await generateKeyPair('ES256')
      await writeFile(join(dir, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', use: 'sig' }] }))
      const app = await build(db, api({ jwksFile: 'jwks.json' }), {}, dir)
      try {
        const token = await new SignJWT({ sub: 'fay' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setExpirationTime('5m').sign(privateKey)
        assert.equal((await app.inject({ url: '/notes', headers: bearer(token) })).statusCode, 200)
        const stranger = await new SignJWT({ sub: 'fay' }).setProtectedHeader({ alg: 'ES256', kid: 'k2' }).setExpirationTime('5m').sign(other.privateKey)
        const res = await app.inject({ url: '/notes', headers: bearer(stranger) })
        assert.equal(res.statusCode, 401)
        assert.match(res.headers['www-authenticate'] as string, /^Bearer error="invalid_token"/)
        const forged = await new SignJWT({ sub: 'fay' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setExpirationTime('5m').sign(other.privateKey)
        assert.equal((await app.inject({ url: '/notes', headers: bearer(forged) })).json().detail, "The token's signature does not verify")
      } finally {
        await app.close()
      }
    })
  })
})
