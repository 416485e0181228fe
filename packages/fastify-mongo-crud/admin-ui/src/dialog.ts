// A confirmation in a modal <dialog>: nothing is deleted before the user says so.
import { h } from './dom.js'

export function confirmAction(title: string, message: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const heading = h('h2', { id: 'confirm-title' }, title)
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      heading,
      h('p', {}, message),
      h('div', { class: 'buttons' },
        h('button', { type: 'button', onclick: () => dialog.close('cancel') }, 'Cancel'),
        h('button', { type: 'button', class: 'danger', onclick: () => dialog.close('confirm') }, confirmLabel)))
    dialog.addEventListener('close', () => {
      dialog.remove()
      resolve(dialog.returnValue === 'confirm')
    })
    document.body.append(dialog)
    dialog.showModal()
  })
}
