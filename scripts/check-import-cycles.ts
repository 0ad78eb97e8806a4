/**
 * `node scripts/check-import-cycles.ts`: the import graph of `packages/*\/src` has no cycle (type-only
 * imports count: a cycle of types is still a tangle), and `apps/web/src` never reaches into
 * `packages/` through a relative path (it imports the packages by name). Exits 1 and lists what it
 * found, unless a cycle is on the allow-list below.
 *
 * Run from `test/structure.test.ts` in `npm test`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Known cycles, as their files sorted and joined with ` <-> `, each with why it is allowed for now.
 * Empty this list as they are untangled; never add to it to get a change through.
 */
export const ALLOWED_CYCLES: Readonly<Record<string, string>> = {};

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative module specifiers a file imports or re-exports (static and dynamic `import()`). */
export function specifiers(path: string): string[] {
  const sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      out.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) out.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      out.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out.filter((s) => s.startsWith('.'));
}

function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')])
    if (existsSync(candidate) && candidate.match(/\.(ts|tsx)$/)) return candidate;
  return undefined;
}

/** Strongly connected components of more than one file (or a file importing itself): the cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) strong(v);
  return found;
}

/** Import arrows that run back up a layer: a file under `from` may not import a file under `to`. */
export const LAYERS: readonly { from: string; to: string }[] = [{ from: 'packages/core/src/inputs/', to: 'packages/core/src/protocols/' }];

/** The imports in `graph` (absolute paths) that break a rule of `layers` (paths relative to `root`). */
export function layerViolations(graph: ReadonlyMap<string, readonly string[]>, root: string, layers = LAYERS): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = relative(root, file);
    for (const target of targets) {
      const to = relative(root, target);
      for (const rule of layers) if (from.startsWith(rule.from) && to.startsWith(rule.to)) out.push(`${from} imports ${to}`);
    }
  }
  return out;
}

/**
 * The import cycles in `packages/*\/src`, the imports that run back up a layer (`LAYERS`) and the
 * relative imports from `apps/web/src` into `packages/`.
 */
export function checkImports(root = ROOT): {
  cycles: string[];
  allowed: string[];
  stale: string[];
  layers: string[];
  webIntoPackages: string[];
} {
  const graph = new Map<string, string[]>();
  for (const pkg of readdirSync(join(root, 'packages'), { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    for (const file of sourceFiles(join(root, 'packages', pkg.name, 'src'))) {
      const targets = specifiers(file)
        .map((s) => resolveImport(file, s))
        .filter((t): t is string => t !== undefined);
      graph.set(file, targets);
    }
  }
  const all = cycles(graph).map((c) => c.map((f) => relative(root, f)).join(' <-> '));
  const webIntoPackages: string[] = [];
  const packagesDir = join(root, 'packages');
  for (const file of sourceFiles(join(root, 'apps/web/src'))) {
    for (const s of specifiers(file)) {
      if (resolve(dirname(file), s).startsWith(packagesDir)) webIntoPackages.push(`${relative(root, file)} imports ${s}`);
    }
  }
  return {
    cycles: all.filter((c) => !Object.hasOwn(ALLOWED_CYCLES, c)),
    allowed: all.filter((c) => Object.hasOwn(ALLOWED_CYCLES, c)),
    stale: Object.keys(ALLOWED_CYCLES).filter((c) => !all.includes(c)),
    layers: layerViolations(graph, root),
    webIntoPackages,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = checkImports();
  for (const c of r.allowed) console.log(`allowed cycle: ${c}: ${ALLOWED_CYCLES[c]}`);
  for (const c of r.stale) console.log(`stale allow-list entry (no longer a cycle): ${c}`);
  for (const c of r.cycles) console.error(`import cycle: ${c}`);
  for (const l of r.layers) console.error(`import runs back up a layer: ${l}`);
  for (const w of r.webIntoPackages) console.error(`apps/web reaches into packages/ by a relative path: ${w}`);
  process.exitCode = r.cycles.length > 0 || r.layers.length > 0 || r.webIntoPackages.length > 0 ? 1 : 0;
}
