import assert from 'node:assert/strict'
import type { App } from './app.ts'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are arbitrary JSON, asserted field by field
export type Json = any

/** POSTs `doc` to `url` and returns the created document; fails the test unless the answer is 201. */
export async function createDoc(
  app: App,
  url: string,
  doc: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Json> {
  const res = await app.inject({ method: 'POST', url, payload: doc, headers })
  assert.equal(res.statusCode, 201, `seeding ${url} answered ${res.statusCode}: ${res.body}`)
  return res.json()
}

/** Creates `docs` one after the other (so insertion order is `docs` order) and returns them as created. */
export async function seedDocs(
  app: App,
  url: string,
  docs: Record<string, unknown>[],
  headers: Record<string, string> = {},
): Promise<Json[]> {
  const created: Json[] = []
  for (const doc of docs) created.push(await createDoc(app, url, doc, headers))
  return created
}

/** GETs `url` and returns the JSON body; fails the test unless the answer is 200. */
export async function getJson(app: App, url: string, headers: Record<string, string> = {}): Promise<Json> {
  const res = await app.inject({ method: 'GET', url, headers })
  assert.equal(res.statusCode, 200, `GET ${url} answered ${res.statusCode}: ${res.body}`)
  return res.json()
}

/** The `name` of every document of a list answer, in answer order. */
export function namesOf(docs: Json[]): string[] {
  return docs.map((doc) => doc.name)
}
