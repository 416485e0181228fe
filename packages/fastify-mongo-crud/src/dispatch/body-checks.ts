import type { FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import { JSON_PATCH_SCHEMA, MERGE_PATCH_SCHEMA } from '../patch/patch-media-types.js'
import { bodyChecker } from '../schema/body-checker.js'
import type { WireDoc } from '../store/store.js'

export type Check = (body: unknown) => WireDoc

/** `$ref`s of the bodies one kind's routes take: create, replace (when the kind has it), update. */
export interface Bodies {
  readonly create: object
  readonly replace?: object | undefined
  readonly patch: object
}

/** The checks of every body one kind of document takes, by operation and PATCH media type. */
export interface BodyChecks {
  readonly create: Check
  readonly replace?: Check | undefined
  readonly patch: Check
  readonly merge: Check
  readonly jsonPatch: Check
}

/**
 * Every body check of one kind, compiled once at registration by the router's validator (so a body
 * the dispatch checks gets the 422 its route gives): the one place a body checker is built.
 */
export function bodyChecks(compile: FastifySchemaCompiler<TSchema>, bodies: Bodies, url: string): BodyChecks {
  return {
    create: bodyChecker(compile, bodies.create, url),
    replace: bodies.replace === undefined ? undefined : bodyChecker(compile, bodies.replace, url),
    patch: bodyChecker(compile, bodies.patch, url),
    merge: bodyChecker(compile, MERGE_PATCH_SCHEMA, url),
    jsonPatch: bodyChecker(compile, JSON_PATCH_SCHEMA, url),
  }
}

/** A kind's bodies: their schemas (OpenAPI) and their checks. */
export interface Bodied {
  readonly bodies: Bodies
  readonly checks: BodyChecks
}

export function bodiedOf(compile: FastifySchemaCompiler<TSchema>, bodies: Bodies, url: string): Bodied {
  return { bodies, checks: bodyChecks(compile, bodies, url) }
}
