// A test reporter that prints, once every file has run, each failing test with its file, line and error.
// `npm run test:unit` writes TAP to stdout and this to stderr: a run of thousands of tests whose log is
// kept only in part (a CI page, a terminal's scrollback) still names what failed at its very end.
export default async function* failuresReporter(source) {
  const failures = []
  for await (const event of source) {
    if (event.type !== 'test:fail') continue
    const { name, file, line, details } = event.data
    // A suite or test that failed only because a subtest did: the subtest is listed itself.
    if (details.error?.failureType === 'subtestsFailed') continue
    failures.push({ name, at: file ? `${file}:${line ?? '?'}` : '(no file)', error: details.error })
  }
  if (failures.length === 0) return
  yield `\n# ${failures.length} failing test${failures.length === 1 ? '' : 's'}:\n`
  for (const { name, at, error } of failures) {
    yield `# ✖ ${name}\n#   at ${at}\n`
    const text = String(error?.cause?.stack ?? error?.cause ?? error?.message ?? error)
    for (const line of text.split('\n').slice(0, 12)) yield `#   ${line}\n`
  }
}
