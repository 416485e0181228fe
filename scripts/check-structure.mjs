#!/usr/bin/env node
// Fails on an import cycle, a loop between folders, or a function longer than 80 lines in any package's
// src/ (part of `npm run lint`). Small units and an acyclic module graph keep every idea in one place: a
// cycle usually means two files share a job, and a long function several. Type-only imports count too:
// they tie files together as much. Folders must stand on floors: no folder imports a folder that imports
// it back, however far round, so each folder can be read knowing only the ones below it. A file at the
// top of src/ counts as a folder of its own (the entry points import everything, errors.ts is imported
// by everything: neither makes a loop).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const MAX_LINES = 80
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const problems = []

for (const pkg of readdirSync(join(root, 'packages'))) {
  const src = join(root, 'packages', pkg, 'src')
  if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) continue
  const files = listTs(src)
  const graph = new Map()
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    graph.set(file, importsOf(source, file).filter((target) => files.includes(target)))
    for (const { name, lines, line } of longFunctions(source)) {
      problems.push(`${relative(root, file)}:${line} ${name} is ${lines} lines long (at most ${MAX_LINES})`)
    }
  }
  for (const cycle of cyclesOf(graph)) problems.push(`import cycle: ${cycle.map((file) => relative(root, file)).join(' -> ')}`)
  for (const loop of folderLoops(src, graph)) problems.push(`folder loop in packages/${pkg}/src: ${loop}`)
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  console.error(`check-structure: ${problems.length} problem(s)`)
  process.exit(1)
}
console.log('check-structure: no import cycle, no folder loop, no function over 80 lines')

function listTs(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return listTs(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** Relative imports and re-exports, resolved from `./x.js` to the `./x.ts` beside the file. */
function importsOf(source, file) {
  const targets = []
  for (const statement of source.statements) {
    const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) ? statement.moduleSpecifier : undefined
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue
    targets.push(resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts')))
  }
  return targets
}

function longFunctions(source) {
  const found = []
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
      if (end - start + 1 > MAX_LINES) found.push({ name: nameOf(node), lines: end - start + 1, line: start + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

function nameOf(node) {
  if (node.name !== undefined) return node.name.getText()
  const parent = node.parent
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText()
  return '(anonymous function)'
}

/** Every strongly connected group of more than one file (Tarjan), as a list of its files. */
function cyclesOf(graph) {
  let index = 0
  const indexes = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const cycles = []
  const connect = (file) => {
    indexes.set(file, index)
    low.set(file, index++)
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!indexes.has(target)) {
        connect(target)
        low.set(file, Math.min(low.get(file), low.get(target)))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), indexes.get(target)))
    }
    if (low.get(file) !== indexes.get(file)) return
    const group = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      group.push(member)
    } while (member !== file)
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(group.reverse())
  }
  for (const file of graph.keys()) if (!indexes.has(file)) connect(file)
  return cycles
}

/**
 * The loops among src/'s folders (a top-level file is a folder of its own), each with the imports
 * that close it, so the message says which file to move or which dependency to turn round.
 */
function folderLoops(src, graph) {
  const folderOf = (file) => relative(src, file).split(/[\\/]/)[0]
  const folders = new Map()
  const imports = new Map()
  for (const [file, targets] of graph) {
    const from = folderOf(file)
    if (!folders.has(from)) folders.set(from, new Set())
    for (const target of targets) {
      const to = folderOf(target)
      if (to === from) continue
      folders.get(from).add(to)
      const key = `${from} -> ${to}`
      if (!imports.has(key)) imports.set(key, [])
      imports.get(key).push(`${relative(src, file)} -> ${relative(src, target)}`)
    }
  }
  const folderGraph = new Map([...folders].map(([folder, targets]) => [folder, [...targets]]))
  return cyclesOf(folderGraph).map((loop) => {
    const members = new Set(loop)
    const closing = [...imports].filter(([key]) => key.split(' -> ').every((folder) => members.has(folder)))
    return `${loop.join(', ')}; imports between them: ${closing.map(([key, files]) => `${key} (${files.slice(0, 3).join(', ')}${files.length > 3 ? ', ...' : ''})`).join('; ')}`
  })
}
