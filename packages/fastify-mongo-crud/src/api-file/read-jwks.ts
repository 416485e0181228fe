import { createPublicKey } from 'node:crypto'
import { createLocalJWKSet, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose'
import { isRecord } from '../is-record.js'
import type { Report } from './issue-reporter.js'
import { algorithmsOf, type KeyKind } from './jwt-algorithms.js'

const POINTER = '/auth/jwksFile'

/**
 * A JWKS file's public keys, each checked: a key Node cannot read, a private or secret one, or one of
 * a kind no accepted algorithm verifies is refused, naming the key. The algorithms are those `wanted`
 * (the file's `algorithms`) that some key verifies, else every one the keys verify (a key's own `alg`
 * when it has one).
 */
export function readJwks(text: string, file: string, wanted: readonly string[] | undefined, report: Report): { key: JWTVerifyGetKey, algorithms: string[] } | undefined {
  let jwks: unknown
  try {
    jwks = JSON.parse(text)
  } catch (error) {
    report(POINTER, `${file} is not JSON: ${(error as Error).message}`)
    return undefined
  }
  const keys = isRecord(jwks) && Array.isArray(jwks['keys']) ? (jwks['keys'] as unknown[]) : []
  if (keys.length === 0) {
    report(POINTER, `${file} is not a JSON Web Key Set: it needs a "keys" array of at least one key`)
    return undefined
  }
  const verified = new Set<string>()
  let ok = true
  keys.forEach((key, index) => {
    const algorithms = keyAlgorithms(key, `${file}: key ${index}${isRecord(key) && typeof key['kid'] === 'string' ? ` ('${key['kid']}')` : ''}`, report)
    if (algorithms === undefined) ok = false
    for (const alg of algorithms ?? []) verified.add(alg)
  })
  if (!ok) return undefined
  const algorithms = wanted === undefined ? [...verified] : wanted.filter((alg) => verified.has(alg))
  if (wanted !== undefined && algorithms.length < wanted.length) {
    const refused = wanted.filter((alg) => !verified.has(alg))
    report('/auth/algorithms', `no key of ${file} verifies ${refused.join(', ')} (its keys verify ${[...verified].join(', ')})`)
    return undefined
  }
  return { key: createLocalJWKSet(jwks as unknown as JSONWebKeySet), algorithms }
}

/** What one key verifies; undefined (reported) when it is not a public key of a kind `auth` accepts. */
function keyAlgorithms(key: unknown, name: string, report: Report): readonly string[] | undefined {
  if (!isRecord(key) || typeof key['kty'] !== 'string') {
    report(POINTER, `${name} is not a JSON Web Key (it has no "kty")`)
    return undefined
  }
  if (key['d'] !== undefined || key['kty'] === 'oct') {
    report(POINTER, `${name} is a private or secret key: a JWKS file holds public keys only (a secret goes in 'secretEnv')`)
    return undefined
  }
  const kind = jwkKind(key)
  if (kind === undefined) {
    report(POINTER, `${name} is a ${key['kty']}${typeof key['crv'] === 'string' ? ` ${key['crv']}` : ''} key, which none of the accepted algorithms verifies (RSA, EC P-256, P-384, P-521 or Ed25519 keys)`)
    return undefined
  }
  try {
    createPublicKey({ key: key as JWK & Record<string, string>, format: 'jwk' })
  } catch (error) {
    report(POINTER, `${name} is not a valid ${kind} key (${(error as Error).message})`)
    return undefined
  }
  const alg = key['alg']
  if (alg === undefined) return algorithmsOf(kind)
  if (typeof alg === 'string' && algorithmsOf(kind).includes(alg)) return [alg]
  report(POINTER, `${name} is a ${kind} key, which does not verify its "alg" ${JSON.stringify(alg)} (it verifies ${algorithmsOf(kind).join(', ')})`)
  return undefined
}

function jwkKind(key: Record<string, unknown>): KeyKind | undefined {
  if (key['kty'] === 'RSA') return 'RSA'
  if (key['kty'] === 'EC' && (key['crv'] === 'P-256' || key['crv'] === 'P-384' || key['crv'] === 'P-521')) return `EC ${key['crv']}`
  if (key['kty'] === 'OKP' && key['crv'] === 'Ed25519') return 'Ed25519'
  return undefined
}
