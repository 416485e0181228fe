import type { FastifyRequest, FastifySchemaCompiler } from 'fastify'
import type { TSchema } from 'typebox'
import type { RouterContext } from '../core/router-context.js'
import { fillFromScope } from '../core/scoped-write.js'
import type { Dependency } from '../dependency.js'
import type { RouteName } from '../options.js'
import { JSON_PATCH_SCHEMA, MERGE_PATCH_SCHEMA } from '../patch/patch-media-types.js'
import { ref } from '../relations/child-model.js'
import { CHILD_PARAM, type LookupPlan } from '../relations/lookup-plan.js'
import { childDependencies, READS_PARENT } from '../relations/parent.js'
import type { Resource } from '../resources/resource.js'
import { bodyChecker } from '../schema/body-checker.js'
import type { DriverDb } from '../store/driver-db.js'
import type { WireDoc } from '../store/store.js'
import type { BatchBodies, BatchOp } from './batch-schemas.js'

type Check = (body: unknown) => WireDoc

/**
 * What the batch of one kind (the router's documents, a lookup's children) runs each operation
 * with: the route it stands for, with that route's guards, `disable*` and body checks, so that an
 * operation in a batch is refused or applied exactly as the same request sent alone.
 */
export interface BatchKind {
  readonly resource: Resource
  readonly db: DriverDb
  /** The path parameter of one document, which an operation's `id` fills. */
  readonly param: string
  readonly disabled: ReadonlySet<RouteName>
  /** The dependencies the route runs, in its order. */
  guards(route: RouteName): readonly Dependency[]
  /** The router's `filterDependency`, which every operation runs too: its `securedBy` shows in OpenAPI. */
  readonly scope: unknown
  /** Before a create's or a replace's body is checked: the fields the scope fixes (the router's own routes). */
  readonly fill?: ((request: FastifyRequest, body: unknown) => Promise<void>) | undefined
  readonly checks: { readonly create: Check, readonly replace?: Check | undefined, readonly patch: Check, readonly merge: Check, readonly jsonPatch: Check }
  /** The bodies' schemas, as OpenAPI shows them. */
  readonly bodies: BatchBodies
  readonly maxOperations: number
}

/** The route each operation stands for. */
export const ROUTE_OF: Readonly<Record<BatchOp, RouteName>> = { create: 'CreateOne', replace: 'ReplaceOne', update: 'UpdateOne', delete: 'DeleteOne' }

type Compile = FastifySchemaCompiler<TSchema>

function checksOf(compile: Compile, bodies: BatchBodies, url: string): BatchKind['checks'] {
  return {
    create: bodyChecker(compile, bodies.create, url),
    replace: bodies.replace === undefined ? undefined : bodyChecker(compile, bodies.replace, url),
    patch: bodyChecker(compile, bodies.patch, url),
    merge: bodyChecker(compile, MERGE_PATCH_SCHEMA, url),
    jsonPatch: bodyChecker(compile, JSON_PATCH_SCHEMA, url),
  }
}

/** The router's own documents: its routes' guards; creates and replaces filled from the scope first. */
export function collectionBatch(context: RouterContext, resource: Resource, compile: Compile): BatchKind {
  const { options } = context
  const bodies = { create: context.refs.body, replace: context.refs.body, patch: context.refs.patch }
  return {
    resource,
    db: options.db,
    param: context.itemParam,
    disabled: options.disabled,
    guards: (route) => options.dependencies[route],
    scope: options.filterDependency,
    fill: options.filterDependency === undefined ? undefined : (request, body) => fillFromScope(context, request, body),
    checks: checksOf(compile, bodies, `batch:${options.collectionName}`),
    bodies,
    maxOperations: options.maxBatchOperations,
  }
}

/** A lookup's children: the parent's GetOne guards, then the lookup's own, as its child routes run them. */
export function lookupBatch(context: RouterContext, plan: LookupPlan, resource: Resource, compile: Compile): BatchKind {
  const bodies = { create: ref(plan.createBody), replace: ref(plan.createBody), patch: ref(plan.child.patch) }
  return {
    resource,
    db: context.options.db,
    param: CHILD_PARAM,
    disabled: plan.lookup.disabled,
    guards: (route) => childDependencies(context, plan.lookup.dependencies, route, READS_PARENT),
    scope: context.options.filterDependency,
    checks: checksOf(compile, bodies, `batch:${plan.lookup.collectionName}`),
    bodies,
    maxOperations: context.options.maxBatchOperations,
  }
}
