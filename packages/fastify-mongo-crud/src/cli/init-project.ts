import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CommandFailure } from './command-failure.js'
import { STARTER_DATA_DIR, starterApiFile } from './starter-api-file.js'

/**
 * `fastify-mongo-crud init`: writes the starter api.json in `dir`, refusing (changing nothing) when
 * one exists, then makes .gitignore ignore the data directory: a .gitignore that exists is kept and
 * gets the line if it lacks one for the directory (a project has one already more often than not;
 * refusing there would leave its data to be committed).
 */
export async function initProject(dir: string, log: (line: string) => void = console.log): Promise<void> {
  try {
    // `wx` fails if the file exists, with no window between a check and the write.
    await writeFile(join(dir, 'api.json'), starterApiFile(), { flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    throw new CommandFailure('api.json exists already: init changed nothing. Serve it with `fastify-mongo-crud serve api.json`, or run init in another folder')
  }
  log('fastify-mongo-crud: wrote api.json (a model Todo, served at /todos; data in ./data)')
  log(`fastify-mongo-crud: ${await ignoreDataDir(dir)}`)
  log('Next: npx fastify-mongo-crud serve api.json   (docs at http://127.0.0.1:8000/docs)')
}

/** The lines of a .gitignore that already ignore the top-level data directory. */
const IGNORING = new Set([STARTER_DATA_DIR, `${STARTER_DATA_DIR}/`, `/${STARTER_DATA_DIR}`, `/${STARTER_DATA_DIR}/`])

/**
 * Adds `/data/` to the .gitignore of `dir` (written if missing), unless a line ignores it already.
 * Anchored: a `data/` folder elsewhere in the project (fixtures, sources) stays tracked.
 */
async function ignoreDataDir(dir: string): Promise<string> {
  const path = join(dir, '.gitignore')
  const line = `/${STARTER_DATA_DIR}/`
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    await writeFile(path, `${line}\n`, { flag: 'wx' })
    return `wrote .gitignore (${line}: the data stays out of git)`
  }
  if (text.split(/\r?\n/).some((entry) => IGNORING.has(entry.trim()))) return `.gitignore already ignores ./${STARTER_DATA_DIR}`
  await writeFile(path, `${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`, { flag: 'a' })
  return `added ${line} to .gitignore (the data stays out of git)`
}
