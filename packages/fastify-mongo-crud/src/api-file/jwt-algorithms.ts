/**
 * The JWS algorithms `auth` accepts, by the kind of key that verifies them. `none` is never one of
 * them, and a file names the ones it accepts (or gets those of its key): a token cannot choose.
 */
export const ALGORITHMS_BY_KEY = {
  secret: ['HS256', 'HS384', 'HS512'],
  RSA: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
  'RSA-PSS': ['PS256', 'PS384', 'PS512'],
  'EC P-256': ['ES256'],
  'EC P-384': ['ES384'],
  'EC P-521': ['ES512'],
  Ed25519: ['EdDSA'],
} as const

export type KeyKind = keyof typeof ALGORITHMS_BY_KEY

export type JwtAlgorithm = (typeof ALGORITHMS_BY_KEY)[KeyKind][number]

export const JWT_ALGORITHMS: readonly JwtAlgorithm[] = [...new Set(Object.values(ALGORITHMS_BY_KEY).flat())]

/** The shortest secret of each HMAC algorithm, in bytes: its hash's output size (RFC 7518, section 3.2). */
export const HMAC_MIN_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 }

/** Algorithms a key of `kind` verifies, among `wanted` (default: all of them). */
export function algorithmsOf(kind: KeyKind, wanted?: readonly string[]): readonly string[] {
  const fit: readonly string[] = ALGORITHMS_BY_KEY[kind]
  return wanted === undefined ? fit : wanted.filter((alg) => fit.includes(alg))
}
