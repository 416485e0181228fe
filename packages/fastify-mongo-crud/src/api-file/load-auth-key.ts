import { createPublicKey, type KeyObject } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { JWTVerifyGetKey } from 'jose'
import type { AuthDeclaration } from './api-file.js'
import type { Report } from './issue-reporter.js'
import { algorithmsOf, HMAC_MIN_BYTES, type KeyKind } from './jwt-algorithms.js'
import { readJwks } from './read-jwks.js'

/** What verifies the file's tokens: the key (or the key set a token picks from by `kid`), and the algorithms accepted. */
export interface AuthKey {
  key: Uint8Array | KeyObject | JWTVerifyGetKey
  algorithms: string[]
}

/**
 * The key `auth` names, read and checked once, before the app serves: the secret from the
 * environment (long enough for its algorithms), or the public key file or JWKS file next to the API
 * file. Each problem is reported at the key of the file it is about; undefined when there is one.
 * Without `env` (what `check` runs) the secret is not looked for: like MONGODB_URI, it belongs to the
 * machine that serves, not to the file.
 */
export async function loadAuthKey(auth: AuthDeclaration, dir: string, env: NodeJS.ProcessEnv | undefined, report: Report): Promise<AuthKey | undefined> {
  if (auth.secretEnv !== undefined) return env === undefined ? undefined : secretKey(auth.secretEnv, auth.algorithms ?? ['HS256'], env, report)
  const file = auth.publicKeyFile ?? auth.jwksFile
  if (file === undefined) return undefined
  const pointer = auth.publicKeyFile === undefined ? '/auth/jwksFile' : '/auth/publicKeyFile'
  let text: string
  try {
    text = await readFile(resolve(dir, file), 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    report(pointer, `cannot read ${file}: ${reason}`)
    return undefined
  }
  if (auth.jwksFile !== undefined) return readJwks(text, file, auth.algorithms, report)
  return publicKey(text, file, auth.algorithms, report)
}

function secretKey(name: string, algorithms: readonly string[], env: NodeJS.ProcessEnv, report: Report): AuthKey | undefined {
  const value = env[name]
  if (value === undefined || value === '') {
    report('/auth/secretEnv', `the environment variable ${name} is not set: it holds the secret the tokens are signed with`)
    return undefined
  }
  const secret = new TextEncoder().encode(value)
  const longest = algorithms.reduce((best, alg) => ((HMAC_MIN_BYTES[alg] ?? 0) > (HMAC_MIN_BYTES[best] ?? 0) ? alg : best))
  const needed = HMAC_MIN_BYTES[longest] ?? 0
  if (secret.length < needed) {
    report('/auth/secretEnv', `${name} holds ${secret.length} bytes: ${longest} needs a secret of at least ${needed} bytes (its hash's size), e.g. openssl rand -base64 ${needed}`)
    return undefined
  }
  return { key: secret, algorithms: [...algorithms] }
}

function publicKey(text: string, file: string, wanted: readonly string[] | undefined, report: Report): AuthKey | undefined {
  const pointer = '/auth/publicKeyFile'
  // Node derives a public key from a private one: refused, so that a private key never ends up deployed as "the key".
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    report(pointer, `${file} holds a private key: give its public key (openssl pkey -in private.pem -pubout -out public.pem)`)
    return undefined
  }
  let key: KeyObject
  try {
    key = createPublicKey(text)
  } catch {
    report(pointer, `${file} is not a PEM public key ('-----BEGIN PUBLIC KEY-----') or certificate`)
    return undefined
  }
  const kind = keyKindOf(key)
  if (kind === undefined) {
    report(pointer, `${file} holds a ${key.asymmetricKeyType} key, which none of the accepted algorithms verifies (RSA, EC P-256, P-384, P-521 or Ed25519 keys)`)
    return undefined
  }
  const algorithms = algorithmsOf(kind, wanted)
  if (wanted !== undefined && algorithms.length < wanted.length) {
    const refused = wanted.filter((alg) => !algorithms.includes(alg))
    report('/auth/algorithms', `the ${kind} key of ${file} does not verify ${refused.join(', ')} (it verifies ${algorithmsOf(kind).join(', ')})`)
    return undefined
  }
  return { key, algorithms: [...algorithms] }
}

const CURVES: Readonly<Record<string, KeyKind>> = { prime256v1: 'EC P-256', secp384r1: 'EC P-384', secp521r1: 'EC P-521' }

function keyKindOf(key: KeyObject): KeyKind | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return 'RSA'
    case 'rsa-pss':
      return 'RSA-PSS'
    case 'ec':
      return CURVES[key.asymmetricKeyDetails?.namedCurve ?? '']
    case 'ed25519':
      return 'Ed25519'
    default:
      return undefined
  }
}
