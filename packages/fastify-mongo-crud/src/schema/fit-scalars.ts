import { DROP, describe, type Fit } from './fit.js'

/** The fits of `type: number`, `integer` and `boolean`: nothing converts to them, so a misfit is left out. */
export const numberFit: Fit = (value, issues) => {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  issues.push({ path: '', reason: typeof value === 'number' ? `non-finite number ${value}` : `${describe(value)} where a number is declared` })
  return DROP
}

export const integerFit: Fit = (value, issues) => {
  if (Number.isInteger(value)) return value
  issues.push({ path: '', reason: `${typeof value === 'number' ? `the number ${value}` : describe(value)} where an integer is declared` })
  return DROP
}

export const booleanFit: Fit = (value, issues) => {
  if (typeof value === 'boolean') return value
  issues.push({ path: '', reason: `${describe(value)} where a boolean is declared` })
  return DROP
}
