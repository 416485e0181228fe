// The admin page: reads the app's OpenAPI document, lists its routers, and shows the one chosen.
import { errorOf, onCredentials, request } from './api.js'
import { fill, h } from './dom.js'
import { listView } from './list-view.js'
import { type OpenApiDocument, type RouterInfo, routersOf } from './openapi.js'
import { viewAsPanel } from './view-as.js'

async function start(): Promise<void> {
  const root = document.documentElement
  const title = root.dataset['title'] ?? 'API'
  const main = h('main', { id: 'main' }, h('p', {}, 'Loading the OpenAPI document...'))
  const nav = h('nav', { 'aria-label': 'Routers' })
  document.body.append(
    h('header', { class: 'top' }, h('h1', {}, title, h('span', { class: 'subtitle' }, ' admin')), viewAsPanel()),
    h('div', { class: 'layout' }, nav, main))
  const response = await request(root.dataset['openapi'] ?? '/openapi.json')
  if (!response.ok) return fill(main, h('p', { class: 'error', role: 'alert' }, `The OpenAPI document could not be read: ${(await errorOf(response)).text}`))
  const routers = routersOf((await response.json()) as OpenApiDocument)
  let current: { router: RouterInfo, view: { close(): void } } | undefined
  const buttons = new Map<string, HTMLButtonElement>()
  const choose = (router: RouterInfo) => {
    current?.view.close()
    for (const [prefix, button] of buttons) button.setAttribute('aria-current', String(prefix === router.prefix))
    current = { router, view: listView(main, router) }
  }
  for (const router of routers) {
    buttons.set(router.prefix, h('button', { type: 'button', class: 'router', 'data-prefix': router.prefix, onclick: () => choose(router) }, router.label, h('span', { class: 'prefix' }, router.prefix)))
  }
  fill(nav, h('h2', {}, 'Routers'), h('ul', {}, ...[...buttons.values()].map((button) => h('li', {}, button))))
  // New credentials: what is shown is read again, as they see it.
  onCredentials(() => {
    if (current !== undefined) choose(current.router)
  })
  if (routers[0] === undefined) fill(main, h('p', {}, 'This API has no routers.'))
  else choose(routers[0])
}

void start()
