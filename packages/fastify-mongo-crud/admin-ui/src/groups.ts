// A bar chart of `<prefix>/_groups` (docs/groups.md): one bar per group of the chosen field, as long as
// the chosen metric, over the documents the list's filter keeps.
import { errorOf, request } from './api.js'
import { display, fill, h, select, svg } from './dom.js'
import type { Filter } from './filters.js'
import type { RouterInfo } from './openapi.js'

/** Groups shown at most, the largest first. */
export const MAX_BARS = 50
const WIDTH = 720
const LABEL = 180
const BAR = 22
const GAP = 8

/** A metric's key in the answer: `count`, `sum:age` → `sum_age`. */
export const metricKey = (metric: string): string => metric.replace(':', '_')

function chart(rows: Array<Record<string, unknown>>, by: string, metric: string): SVGElement {
  const key = metricKey(metric)
  const values = rows.map((row) => (typeof row[key] === 'number' ? (row[key] as number) : 0))
  const max = Math.max(1, ...values.map(Math.abs))
  const height = rows.length * (BAR + GAP) + GAP
  const summary = rows.map((row, index) => `${display(row[by] ?? null)}: ${values[index]}`).join(', ')
  return svg('svg', { class: 'chart', width: WIDTH, height, viewBox: `0 0 ${WIDTH} ${height}`, role: 'img', 'aria-label': `${key} by ${by}: ${summary}` },
    ...rows.map((row, index) => {
      const y = GAP + index * (BAR + GAP)
      const label = display(row[by] ?? null)
      const width = Math.max(0, (values[index]! / max) * (WIDTH - LABEL - 80))
      return svg('g', { class: 'bar', 'data-key': label, 'data-value': values[index]! },
        svg('text', { x: LABEL - 8, y: y + BAR * 0.7, 'text-anchor': 'end' }, label.length > 24 ? `${label.slice(0, 23)}…` : label),
        svg('rect', { x: LABEL, y, width, height: BAR, rx: 2 }),
        svg('text', { x: LABEL + width + 6, y: y + BAR * 0.7 }, String(values[index])))
    }))
}

/** The chart's controls and the chart; `filter()` is the list's filter as applied. */
export function groupsView(router: RouterInfo, filter: () => Filter | undefined): HTMLElement {
  const { by, metrics } = router.groups!
  const field = select({ id: 'groups-by' }, by.map((name) => [name, name]))
  const metric = select({ id: 'groups-metric' }, metrics.map((name) => [name, name]), 'count')
  const output = h('div', { class: 'chart-box' })
  const show = async () => {
    const params = new URLSearchParams({ by: field.value, metrics: metric.value, sort_by: metricKey(metric.value), order_by: 'DESC', limit: String(MAX_BARS) })
    const applied = filter()
    if (applied !== undefined) params.set('filters', JSON.stringify(applied))
    const response = await request(`${router.prefix}/_groups?${params}`)
    if (!response.ok) return fill(output, h('p', { class: 'error', role: 'alert' }, `Groups unavailable: ${(await errorOf(response)).text}`))
    const rows = (await response.json()) as Array<Record<string, unknown>>
    fill(output, rows.length === 0 ? h('p', {}, 'No documents to group.') : chart(rows, field.value, metric.value))
  }
  return h('section', { class: 'groups', 'aria-labelledby': 'groups-title' },
    h('h3', { id: 'groups-title' }, 'Groups'),
    h('div', { class: 'controls' },
      h('label', { for: 'groups-by' }, 'Group by'), field,
      h('label', { for: 'groups-metric' }, 'Metric'), metric,
      h('button', { type: 'button', class: 'primary', onclick: () => void show() }, 'Show chart')),
    output)
}
