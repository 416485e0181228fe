import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { type EmbeddedDb, openEmbedded } from '@fastify-mongo-crud/embedded'
import { ApiFileError, buildApiApp, parseApiFile, verifyApiFile } from 'fastify-mongo-crud/api-file'
import { exportJWK, exportPKCS8, exportSPKI, generateKeyPair } from 'jose'
import { locate } from './locate.ts'

const NOTE = { type: 'object', properties: { title: { type: 'string' }, owner: { type: 'string' }, rank: { type: 'integer' } }, required: ['title', 'owner'] }
const file = (top: Record<string, unknown>, router: Record<string, unknown> = {}) => ({
  ...top,
  models: { Note: NOTE },
  routers: { notes: { prefix: '/notes', collection: 'notes', model: 'Note', ...router } },
})
const text = (value: unknown) => JSON.stringify(value, null, 2)

/** The file's issues as `line:column message (pointer)`, or [] when it loads. */
function issuesOf(t: string): string[] {
  try {
    parseApiFile(t, 'api.json')
    return []
  } catch (error) {
    assert.ok(error instanceof ApiFileError, String(error))
    return error.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message} (${issue.pointer})`)
  }
}

/** The issues building the app finds (the key of `auth`), as `line:column message (pointer)`. */
async function buildIssues(db: EmbeddedDb, t: string, env: NodeJS.ProcessEnv, dir?: string): Promise<string[]> {
  try {
    const app = await buildApiApp(parseApiFile(t, 'api.json', dir), db, { env, fastify: { logger: false } })
    await app.close()
    return []
  } catch (error) {
    assert.ok(error instanceof ApiFileError, String(error))
    return error.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message} (${issue.pointer})`)
  }
}

describe('API file: auth, claims, cors and rateLimit are checked when the file loads, each error at its place', () => {
  it('a claim check without auth; a check on a header and a claim; a securityScheme on a claim check', () => {
    const t = text(
      file({}, { scope: { field: 'owner', claim: 'sub' }, guards: { deleteOne: [{ claim: 'role', header: 'x-role', equals: 'admin' }, { claim: 'role', securityScheme: 'x' }] } })
    )
    assert.deepEqual(issuesOf(t), [
      `${locate(t, '"sub"')} a claim check needs the file's 'auth' key, which says how tokens are verified (/routers/notes/scope/claim)`,
      `${locate(t, '"claim"', locate(t, '"deleteOne"'))} a check reads a header or a claim, not both (/routers/notes/guards/deleteOne/0/claim)`,
      `${locate(t, '"role"', locate(t, '"deleteOne"'))} a claim check needs the file's 'auth' key, which says how tokens are verified (/routers/notes/guards/deleteOne/0/claim)`,
      `${locate(t, '"role"', locate(t, '"equals"', locate(t, '"deleteOne"')))} a claim check needs the file's 'auth' key, which says how tokens are verified (/routers/notes/guards/deleteOne/1/claim)`,
      `${locate(t, '"securityScheme"')} 'securityScheme' names the scheme of a header check: a claim check is documented by the scheme of 'auth' (/routers/notes/guards/deleteOne/1/securityScheme)`,
    ])
  })

  it('a guard or a scope with neither a header nor a claim, at the check, saying what it takes', () => {
    const t = text(file({}, { scope: { field: 'owner' }, guards: { getAll: [{ equals: 'x' }] } }))
    const [scope, guard] = issuesOf(t)
    assert.match(scope!, /^\d+:\d+ 'scope' is not valid: expected a row scope: .*\{ field, header \}.*\{ field, claim \}.* \(\/routers\/notes\/scope\)$/)
    assert.match(guard!, /^\d+:\d+ '0' is not valid: expected a guard: \{ header, equals \} .* or \{ claim, equals\? \} .* \(\/routers\/notes\/guards\/getAll\/0\)$/)
  })

  it("auth: one key source, algorithms that source verifies; a scope claim's field must be a string", () => {
    const none = text(file({ auth: { type: 'jwt' } }))
    assert.deepEqual(issuesOf(none), [`${locate(none, '{', locate(none, '"auth"'))} 'auth' lacks its key: give 'secretEnv' (an HMAC secret), 'publicKeyFile' or 'jwksFile' (/auth)`])
    const two = text(file({ auth: { type: 'jwt', secretEnv: 'S', jwksFile: 'k.json' } }))
    assert.deepEqual(issuesOf(two), [`${locate(two, '"jwksFile"')} 'auth' takes one key: 'secretEnv' or 'jwksFile', not both (/auth/jwksFile)`])
    const mixed = text(file({ auth: { type: 'jwt', secretEnv: 'S', algorithms: ['HS256', 'RS256'] } }))
    assert.deepEqual(issuesOf(mixed), [`${locate(mixed, '"RS256"')} RS256 verifies with a public key ('publicKeyFile' or 'jwksFile'), not with the secret of 'secretEnv' (/auth/algorithms/1)`])
    const hmac = text(file({ auth: { type: 'jwt', publicKeyFile: 'k.pem', algorithms: ['HS256'] } }))
    assert.deepEqual(issuesOf(hmac), [`${locate(hmac, '"HS256"')} HS256 verifies with a secret ('secretEnv'), not with the public key of 'publicKeyFile' (/auth/algorithms/0)`])
    const noneAlg = text(file({ auth: { type: 'jwt', secretEnv: 'S', algorithms: ['none'] } }))
    assert.match(issuesOf(noneAlg)[0]!, /'0' must be one of "HS256", .*"EdDSA" \(\/auth\/algorithms\/0\)$/)
    const rank = text(file({ auth: { type: 'jwt', secretEnv: 'S' } }, { scope: { field: 'rank', claim: 'tenant' } }))
    assert.deepEqual(issuesOf(rank), [`${locate(rank, '"rank"', locate(rank, '"scope"'))} scope field 'rank' must be a string field (the claim must be a string) (/routers/notes/scope/field)`])
  })

  it('cors: exact origins without a path; credentials only with a list of origins. rateLimit: a max and a duration', () => {
    const t = text(file({ cors: { origins: ['https://app.example.com/'], origin: '*' }, rateLimit: { max: 0, timeWindow: '1 fortnight' } }))
    assert.deepEqual(issuesOf(t), [
      `${locate(t, '[', locate(t, '"origins"'))} 'origins' is not valid: expected '*', or the exact origins allowed: scheme, host and port, no path ('https://app.example.com') (/cors/origins)`,
      `${locate(t, '"origin"', locate(t, '"origins"').replace(/:\d+$/, ':20'))} unknown key 'origin' in 'cors': did you mean 'origins'? (/cors/origin)`,
      `${locate(t, '0', locate(t, '"max"'))} 'max' must be >= 1 (/rateLimit/max)`,
      `${locate(t, '"1 fortnight"')} 'timeWindow' is not valid: expected milliseconds, or a duration such as '1 minute' or '30 s' (default '1 minute') (/rateLimit/timeWindow)`,
    ])
    const credentials = text(file({ cors: { origins: '*', credentials: true } }))
    assert.deepEqual(issuesOf(credentials), [
      `${locate(credentials, 'true')} credentials need a list of origins: browsers refuse credentials from an API that allows any origin ('*') (/cors/credentials)`,
    ])
    const level = text(file({ logLevel: 'verbose', trustProxy: 2 }))
    assert.equal(issuesOf(level).length, 2)
    assert.deepEqual(issuesOf(text(file({ cors: true, rateLimit: { max: 5, timeWindow: 1000 }, logLevel: 'info', trustProxy: ['10.0.0.0/8'] }))), [])
  })

  describe('the key, read when the app is built', () => {
    let db: EmbeddedDb
    let dir: string
    before(async () => {
      db = await openEmbedded()
      dir = await mkdtemp(join(tmpdir(), 'fmc-auth-keys-'))
    })
    after(async () => {
      await db.close()
      await rm(dir, { recursive: true, force: true })
    })

    it('secretEnv naming an unset variable, or a secret shorter than its algorithm needs, stops the start naming the variable', async () => {
      const t = text(file({ auth: { type: 'jwt', secretEnv: 'JWT_SECRET' } }))
      const at = locate(t, '"JWT_SECRET"')
      assert.deepEqual(await buildIssues(db, t, {}), [`${at} the environment variable JWT_SECRET is not set: it holds the secret the tokens are signed with (/auth/secretEnv)`])
      assert.deepEqual(await buildIssues(db, t, { JWT_SECRET: 'short' }), [
        `${at} JWT_SECRET holds 5 bytes: HS256 needs a secret of at least 32 bytes (its hash's size), e.g. openssl rand -base64 32 (/auth/secretEnv)`,
      ])
      const hs512 = text(file({ auth: { type: 'jwt', secretEnv: 'JWT_SECRET', algorithms: ['HS256', 'HS512'] } }))
      assert.match((await buildIssues(db, hs512, { JWT_SECRET: 'x'.repeat(40) }))[0]!, /JWT_SECRET holds 40 bytes: HS512 needs a secret of at least 64 bytes/)
    })

    it('a key file that is missing, private, not a key, or of another algorithm; a JWKS with a private key or no keys', async () => {
      const rsa = await generateKeyPair('RS256', { extractable: true })
      await writeFile(join(dir, 'private.pem'), await exportPKCS8(rsa.privateKey))
      await writeFile(join(dir, 'rsa.pem'), await exportSPKI(rsa.publicKey))
      await writeFile(join(dir, 'junk.pem'), 'hello')
      await writeFile(join(dir, 'private.json'), JSON.stringify({ keys: [{ ...(await exportJWK(rsa.privateKey)), kid: 'p' }] }))
      await writeFile(join(dir, 'empty.json'), '{ "keys": [] }')
      const issue = async (auth: Record<string, unknown>) => (await buildIssues(db, text(file({ auth: { type: 'jwt', ...auth } })), {}, dir)).map((line) => line.replace(/^\d+:\d+ /, ''))
      assert.deepEqual(await issue({ publicKeyFile: 'nope.pem' }), ['cannot read nope.pem: no such file (/auth/publicKeyFile)'])
      assert.deepEqual(await issue({ publicKeyFile: 'private.pem' }), [
        'private.pem holds a private key: give its public key (openssl pkey -in private.pem -pubout -out public.pem) (/auth/publicKeyFile)',
      ])
      assert.deepEqual(await issue({ publicKeyFile: 'junk.pem' }), ["junk.pem is not a PEM public key ('-----BEGIN PUBLIC KEY-----') or certificate (/auth/publicKeyFile)"])
      assert.deepEqual(await issue({ publicKeyFile: 'rsa.pem', algorithms: ['ES256'] }), [
        'the RSA key of rsa.pem does not verify ES256 (it verifies RS256, RS384, RS512, PS256, PS384, PS512) (/auth/algorithms)',
      ])
      assert.deepEqual(await issue({ jwksFile: 'private.json' }), [
        "private.json: key 0 ('p') is a private or secret key: a JWKS file holds public keys only (a secret goes in 'secretEnv') (/auth/jwksFile)",
      ])
      assert.deepEqual(await issue({ jwksFile: 'empty.json' }), ['empty.json is not a JSON Web Key Set: it needs a "keys" array of at least one key (/auth/jwksFile)'])
    })

    it('check reports a key file at fault, but not an unset secret (the serving machine holds it)', async () => {
      const bad = text(file({ auth: { type: 'jwt', publicKeyFile: 'junk.pem' } }))
      await assert.rejects(verifyApiFile(bad, 'api.json', dir), (error: unknown) => error instanceof ApiFileError && error.issues[0]?.pointer === '/auth/publicKeyFile')
      const secret = text(file({ auth: { type: 'jwt', secretEnv: 'NOT_SET_ANYWHERE' } }, { scope: { field: 'owner', claim: 'sub' } }))
      assert.equal((await verifyApiFile(secret, 'api.json', dir)).api.auth?.secretEnv, 'NOT_SET_ANYWHERE')
    })
  })
})
