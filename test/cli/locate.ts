/** `line:column` (1-based) of the first `fragment` in `text`, from the `after` position on (a `line:column` too). */
export function locate(text: string, fragment: string, after?: string): string {
  let from = 0
  if (after !== undefined) {
    const [line, column] = after.split(':').map(Number) as [number, number]
    from = text.split('\n').slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + column - 1
  }
  const at = text.indexOf(fragment, from)
  if (at === -1) throw new Error(`${JSON.stringify(fragment)} is not in the text`)
  const before = text.slice(0, at).split('\n')
  return `${before.length}:${before.at(-1)!.length + 1}`
}
