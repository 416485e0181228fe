// "View as": a token (sent as Authorization: Bearer) and the header name/value pairs a gateway would set,
// kept in the tab's memory only (api.ts), never shown back in full.
import { getCredentials, setCredentials } from './api.js'
import { fill, h } from './dom.js'

function describe(): string {
  const { token, headers } = getCredentials()
  const parts = [...(token === '' ? [] : ['a bearer token']), ...headers.map(([name]) => `${name}`)]
  return parts.length === 0 ? 'View as: anonymous' : `View as: ${parts.join(', ')}`
}

export function viewAsPanel(): HTMLElement {
  const summary = h('summary', {}, describe())
  const token = h('input', { id: 'view-as-token', type: 'password', autocomplete: 'off', spellcheck: 'false' })
  const rows = h('div', { class: 'header-rows' })
  const problem = h('p', { class: 'error', role: 'alert' })
  let count = 0
  const addRow = (name = '', value = '') => {
    count++
    const row = h('div', { class: 'header-row' },
      h('input', { type: 'text', 'aria-label': `Header name ${count}`, value: name, autocomplete: 'off', placeholder: 'x-user' }),
      h('input', { type: 'text', 'aria-label': `Header value ${count}`, value, autocomplete: 'off' }),
      h('button', { type: 'button', 'aria-label': `Remove header ${count}`, onclick: () => row.remove() }, '×'))
    rows.append(row)
  }
  const apply = () => {
    const headers = [...rows.querySelectorAll('.header-row')]
      .map((row) => [...row.querySelectorAll('input')].map((input) => input.value.trim()) as [string, string])
      .filter(([name]) => name !== '')
    try {
      setCredentials({ token: token.value.trim(), headers })
      fill(problem)
    } catch (error) {
      return fill(problem, `Not applied: ${(error as Error).message}`)
    }
    fill(summary, describe())
  }
  const clear = () => {
    token.value = ''
    fill(rows)
    apply()
  }
  return h('details', { class: 'view-as' }, summary,
    h('div', { class: 'view-as-body' },
      h('label', { for: 'view-as-token' }, 'Bearer token'), token,
      h('fieldset', {}, h('legend', {}, 'Headers a gateway would set'), rows,
        h('button', { type: 'button', onclick: () => addRow() }, 'Add header')),
      h('p', { class: 'hint' }, 'Kept in this tab only: closing or reloading it forgets them.'),
      h('div', { class: 'buttons' },
        h('button', { type: 'button', class: 'primary', onclick: apply }, 'Apply'),
        h('button', { type: 'button', onclick: clear }, 'Clear')),
      problem))
}
