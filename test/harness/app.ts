import { CRUDRouter, type CRUDRouterOptions, createApp } from '../../src/index.ts'
import type { OpenedStore, StoreMode } from './stores.ts'

export type App = Awaited<ReturnType<typeof createApp>>

/** CRUDRouter's options, minus the `db` the harness fills in from the store mode. */
export type RouterOptions = Omit<CRUDRouterOptions, 'db'>

export interface TestApp {
  app: App
  store: OpenedStore
  close(): Promise<void>
}

/** Opens a store of `mode`, builds an app with one CRUDRouter per entry of `routers`, and readies it. */
export async function buildApp(mode: StoreMode, ...routers: RouterOptions[]): Promise<TestApp> {
  const store = await mode.open()
  try {
    const app = await createApp({ title: 'HTTP tests', version: '1.0.0' })
    for (const options of routers) {
      await app.register(CRUDRouter, { ...options, db: store.db })
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
