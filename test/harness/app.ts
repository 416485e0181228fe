import type { FastifyServerOptions } from 'fastify'
import { CRUDRouter, type CRUDRouterOptions, createApp, type DriverDb } from 'fastify-mongo-crud'
import type { OpenedStore, StoreMode } from './stores.ts'

export type App = Awaited<ReturnType<typeof createApp>>

/**
 * CRUDRouter's options, minus the `db` the harness fills in from the store mode; `handle` gives one
 * router its own handle of that database (as `client.db(name)` does on every call).
 */
export type RouterOptions = Omit<CRUDRouterOptions, 'db'> & { handle?: (db: DriverDb) => DriverDb }

export interface TestApp {
  app: App
  store: OpenedStore
  close(): Promise<void>
}

/** Opens a store of `mode`, builds an app with one CRUDRouter per entry of `routers`, and readies it. */
export function buildApp(mode: StoreMode, ...routers: RouterOptions[]): Promise<TestApp> {
  return buildAppWith(mode, {}, ...routers)
}

/** What some tests need beyond `buildApp`: Fastify options (a larger bodyLimit) and a wrapped db. */
export interface RelationsAppSettings {
  fastify?: FastifyServerOptions
  /** Wraps the store's db before the routers get it (to count store calls). */
  wrapDb?: (db: DriverDb) => DriverDb
}

/** `buildApp` with settings. */
export async function buildAppWith(mode: StoreMode, settings: RelationsAppSettings, ...routers: RouterOptions[]): Promise<TestApp> {
  const store = await mode.open()
  try {
    const app = await createApp({
      title: 'HTTP tests',
      version: '1.0.0',
      // Quiet unless a test brings its own logger: 5xx answers on purpose would fill the test output.
      fastify: settings.fastify ?? { logger: false },
    })
    const db = settings.wrapDb === undefined ? store.db : settings.wrapDb(store.db)
    for (const options of routers) {
      const { handle, ...router } = options
      await app.register(CRUDRouter, { ...router, db: handle === undefined ? db : handle(db) })
    }
    await app.ready()
    return {
      app,
      store,
      async close() {
        try {
          await app.close()
        } finally {
          await store.close()
        }
      },
    }
  } catch (error) {
    await store.close()
    throw error
  }
}

/** `?a=1&b=2`, URL-encoded; an empty string when there is nothing to send. */
export function queryString(params: Record<string, string | number>): string {
  const entries = Object.entries(params).map(([key, value]): [string, string] => [key, String(value)])
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`
}

/** The `filters` query string for `filter`. */
export function filtersQuery(filter: unknown, extra: Record<string, string | number> = {}): string {
  return queryString({ filters: JSON.stringify(filter), ...extra })
}
