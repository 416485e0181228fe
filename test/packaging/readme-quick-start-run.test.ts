// The README's quick start, run as the README says: saved as `app.ts` in a folder of its own beside the
// packages its install line names (the BUILT packages, linked as test/harness/fresh-project.ts links them:
// `npm run build` first, no network), then its own lines `npm pkg set type=module` and `node app.ts` (on
// a Node older than the one that line names, the `npx tsx app.ts` its comment gives). The app must answer
// at the docs address the README gives, with the routes and the guard its code declares.
// test/types/readme-quick-start.test.ts type-checks the same code; this runs it.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { type AddressInfo, connect, createServer } from 'node:net'
import { delimiter, dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import semver from 'semver'
import { freshProject, quickStart, requireBuiltPackages, root } from '../harness/fresh-project.ts'
import { line, readme, run, type Shell, spawnShell } from '../harness/readme-shell.ts'

/**
 * How long the app may take to answer: ATTEMPTS connection tries, POLL_MS apart, 45 s (it answers in about 2 s,
 * up to 8 s on a machine busy with the rest of the suite). Two starts fit in the suite's timeout.
 */
const ATTEMPTS = 450
const POLL_MS = 100

/** A README line without its comment. */
const bare = (shellLine: string) => shellLine.replace(/\s+#.*/, '')
const installLine = line('npm install fastify-mongo-crud ')
const typeLine = line('npm pkg set type=module')
/** `node app.ts   # Node 22.18 or newer; on an older Node: npx tsx app.ts` */
const runLine = line('node app.ts')
const said = /Node (\d+\.\d+) or newer; on an older Node: (npx tsx app\.ts)/.exec(runLine)
assert.ok(said, `the README's run line no longer names the Node that runs app.ts and the command for older ones: ${runLine}`)
const stripsTypes = semver.gte(process.versions.node, `${said[1]}.0`)
/** What this Node runs, by the README: its `node app.ts` line as it is, or the command its comment gives. */
const command = stripsTypes ? runLine : said[2]!
const docsAddress = /The docs are then\s+at\s+(http:\/\/127\.0\.0\.1:\d+\/docs)/.exec(readme)?.[1]
assert.ok(docsAddress, 'README.md no longer says "The docs are then at http://127.0.0.1:<port>/docs"')

/** The environment of a user's shell (readme-shell.ts) whose `node` is the Node running this test, offline. */
const env: NodeJS.ProcessEnv = {
  PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH'] ?? ''}`,
  // npm pkg set needs no registry, and npx must find tsx where before() puts it rather than download it.
  npm_config_offline: 'true',
}

/** A port nothing listens on now, for the app to take instead of 8000. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** Resolves once 127.0.0.1:`port` accepts connections; fails as soon as `app` exits, or after ATTEMPTS tries. */
async function answering(app: Shell, port: number): Promise<void> {
  let code: number | null | undefined
  void app.exited.then((exit) => (code = exit))
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (await connects(port)) return
    await Promise.race([delay(POLL_MS), app.exited])
    if (code !== undefined) assert.fail(`\`${app.command}\` exited with ${code} before answering on ${port}:\n${app.output()}`)
  }
  assert.fail(`\`${app.command}\` did not answer on ${port} after ${ATTEMPTS} tries:\n${app.output()}`)
}

describe(`the README's quick start, run as it says (${bare(command)} on Node ${process.versions.node})`, { timeout: 150_000 }, () => {
  let dir = ''
  let port = 0
  let docs: URL
  const running: Shell[] = []
  const launch = (): Shell => {
    // `exec`: the shell becomes the app, so that this process reaps it when it stops. Without it the app outlives
    // `sh` by a moment, passes to init, and stays a zombie until init reaps it; meanwhile the engine takes the
    // zombie for the live holder of ./data (its lock check is `kill(pid, 0)`) and the next start is refused.
    const app = spawnShell(`exec ${command}`, dir, env)
    running.push(app)
    return app
  }

  before(async () => {
    requireBuiltPackages()
    dir = await freshProject()
    // A folder of its own, as `npm install` leaves it: no tsconfig.json (tsx would read one), and a package.json
    // that lists what the install line names, without "type": the README's next line sets it.
    await rm(join(dir, 'tsconfig.json'))
    const names = bare(installLine).split(/\s+/).slice(2)
    const dependencies: Record<string, string> = {}
    for (const name of names.sort()) {
      const manifest = join(dir, 'node_modules', name, 'package.json')
      assert.ok(existsSync(manifest), `the README installs ${name}, which test/harness/fresh-project.ts does not link`)
      dependencies[name] = `^${(JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version}`
    }
    await writeFile(join(dir, 'package.json'), `${JSON.stringify({ dependencies }, null, 2)}\n`)
    if (!stripsTypes) {
      // Stands in for the tsx that `npx tsx` would download: the workspace's own, where npx looks first.
      await mkdir(join(dir, 'node_modules/.bin'))
      await symlink(join(root, 'node_modules/tsx'), join(dir, 'node_modules/tsx'), 'dir')
      await symlink('../tsx/dist/cli.mjs', join(dir, 'node_modules/.bin/tsx'))
    }
    // The one change to the README's code: it listens on the port of the docs address (8000), which another
    // test or program may hold, and reads no PORT; the copy listens on a free port instead.
    docs = new URL(docsAddress)
    const readmePort = docs.port
    const code = await quickStart()
    assert.equal(code.split(`port: ${readmePort}`).length, 2, `the quick start no longer has exactly one \`port: ${readmePort}\` (the docs address's port)`)
    port = await freePort()
    docs.port = String(port)
    const copy = code.replace(`port: ${readmePort}`, `port: ${port}`)
    assert.notEqual(copy, code)
    await writeFile(join(dir, 'app.ts'), copy)
  })

  after(async () => {
    await Promise.all(running.map((app) => app.stop()))
    if (dir !== '') await rm(dir, { recursive: true, force: true })
  })

  if (stripsTypes) {
    it(`without \`${bare(typeLine)}\`, \`node app.ts\` warns that the folder's package.json needs "type": "module"`, async () => {
      // Node reparses the file as a module when CommonJS cannot hold it, and says so on every start.
      const app = launch()
      await answering(app, port)
      assert.equal(await app.stop(), 0)
      assert.match(app.output(), /MODULE_TYPELESS_PACKAGE_JSON[\s\S]*add "type": "module"/)
    })
  } else {
    it(`without \`${bare(typeLine)}\`, \`${command}\` fails: tsx compiles app.ts as CommonJS, which has no top-level await`, async () => {
      const app = launch()
      await assert.rejects(answering(app, port), /exited with [1-9]\d* before answering/)
      assert.match(app.output(), /top-level await/i)
    })
  }

  it(bare(typeLine), async () => {
    const { code, output } = run(typeLine, dir, env)
    assert.equal(code, 0, output)
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { type?: string; dependencies?: object }
    assert.equal(manifest.type, 'module')
    assert.ok(manifest.dependencies, 'npm pkg set lost the dependencies')
  })

  it(`${bare(command)}: the docs at the README's address, GET and POST /users, DELETE only with x-role: admin`, async () => {
    const app = launch()
    await answering(app, port)

    const page = await fetch(docs)
    assert.equal(page.status, 200, `GET ${docs} (after redirects: ${page.url})`)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
    assert.match(await page.text(), /<html/i)

    const users = `${docs.origin}/users`
    const empty = await fetch(users)
    assert.equal(empty.status, 200)
    assert.deepEqual(await empty.json(), [])

    const created = await fetch(users, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ann', email: 'ann@example.com', password: 'secret-ann' }),
    })
    assert.equal(created.status, 201)
    // modelOut: UserOut, which has no password.
    const { id, ...user } = (await created.json()) as { id: string }
    assert.equal(typeof id, 'string')
    assert.deepEqual(user, { name: 'Ann', email: 'ann@example.com' })

    const refused = await fetch(`${users}/${id}`, { method: 'DELETE' })
    assert.equal(refused.status, 403)
    assert.deepEqual(await refused.json(), { detail: 'Admin required' })
    assert.equal((await fetch(`${users}/${id}`)).status, 200, 'the refused DELETE deleted')

    const deleted = await fetch(`${users}/${id}`, { method: 'DELETE', headers: { 'x-role': 'admin' } })
    assert.ok(deleted.ok, `DELETE with x-role: admin answered ${deleted.status}`)
    assert.deepEqual(await (await fetch(users)).json(), [])

    assert.equal(await app.stop(), 0, app.output())
    assert.doesNotMatch(app.output(), /MODULE_TYPELESS_PACKAGE_JSON/)
  })
})
