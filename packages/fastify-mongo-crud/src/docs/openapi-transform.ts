import type { FastifySchema } from 'fastify'
import { DOCS_KEYWORD } from './list-query-docs.js'

type Json = Record<string, unknown>

/**
 * @fastify/swagger's `transform`: merges what the route schemas keep for the document only
 * (`DOCS_KEYWORD`, see list-query-docs.ts) into copies of them; a key set to undefined there is removed.
 * The route's own schema, which the validator compiled, is never changed.
 */
export function openapiTransform({ schema, url }: { schema: FastifySchema, url: string }): { schema: FastifySchema, url: string } {
  if (schema === undefined || schema === null) return { schema, url }
  const querystring = (schema as Json)['querystring'] as Json | undefined
  const properties = querystring?.['properties'] as Record<string, Json> | undefined
  if (properties === undefined || !(DOCS_KEYWORD in querystring! || Object.values(properties).some((property) => DOCS_KEYWORD in property))) return { schema, url }
  const documented = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, documentedProperty(property)]))
  // The querystring's own (`style`, `explode`), which @fastify/swagger gives each of its parameters.
  return { schema: { ...schema, querystring: { ...documentedProperty(querystring!), properties: documented } }, url }
}

function documentedProperty(property: Json): Json {
  const { [DOCS_KEYWORD]: docs, ...rest } = property
  if (docs === undefined) return property
  const merged: Json = { ...rest, ...(docs as Json) }
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key]
  return merged
}
