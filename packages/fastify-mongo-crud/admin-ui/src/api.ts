// Requests to the app's public HTTP API, with the credentials of "View as". They live in this module's
// memory only: never in localStorage, sessionStorage, a cookie or a URL, so they are gone with the tab.

export interface Credentials {
  /** Sent as `Authorization: Bearer <token>` when not empty. */
  token: string
  /** Header name/value pairs a gateway would set. */
  headers: Array<[string, string]>
}

let credentials: Credentials = { token: '', headers: [] }
const listeners: Array<() => void> = []

export const getCredentials = (): Credentials => credentials

/** Checks and keeps the credentials, then tells every listener (they reload what they show). */
export function setCredentials(next: Credentials): void {
  const headers = new Headers()
  // Throws a TypeError naming a header name or value that HTTP does not allow.
  for (const [name, value] of next.headers) headers.append(name, value)
  credentials = { token: next.token, headers: next.headers.map(([name, value]) => [name, value]) }
  for (const listener of listeners) listener()
}

export const onCredentials = (listener: () => void): void => {
  listeners.push(listener)
}

/** The request headers: the credentials, then `extra`. */
export function headersWith(extra: Record<string, string> = {}): Headers {
  const headers = new Headers()
  for (const [name, value] of credentials.headers) headers.append(name, value)
  if (credentials.token !== '') headers.set('authorization', `Bearer ${credentials.token}`)
  for (const [name, value] of Object.entries(extra)) headers.set(name, value)
  return headers
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: unknown
  contentType?: string
  signal?: AbortSignal
}

/** A request with the credentials; a body is sent as JSON (`contentType` names its media type). */
export function request(url: string, options: RequestOptions = {}): Promise<Response> {
  const extra = { ...options.headers }
  if (options.body !== undefined) extra['content-type'] = options.contentType ?? 'application/json'
  return fetch(url, {
    method: options.method ?? 'GET',
    headers: headersWith(extra),
    cache: 'no-store',
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  })
}

export interface Issue {
  loc: Array<string | number>
  msg: string
}

/** An error answer's `detail`: its text, or its issues (a 422's list of `{ loc, msg }`). */
export async function errorOf(response: Response): Promise<{ text: string, issues: Issue[] }> {
  let detail: unknown
  try {
    detail = ((await response.json()) as { detail?: unknown }).detail
  } catch {
    detail = undefined
  }
  if (Array.isArray(detail)) {
    const issues = detail.filter((item): item is Issue => typeof item === 'object' && item !== null && Array.isArray(item.loc))
    return { text: issues.map((issue) => `${issue.loc.slice(1).join('.') || 'body'}: ${issue.msg}`).join('; '), issues }
  }
  return { text: typeof detail === 'string' ? detail : `${response.status} ${response.statusText}`, issues: [] }
}
