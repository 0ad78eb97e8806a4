/**
 * `node scripts/check-function-length.ts`: a warning for every function or class body over 400 lines
 * in `packages/*\/src` or `apps/web/src`, so new code that grows past it gets a second look. Counts the
 * lines a function, method, arrow function or class spans, nested ones included in their parent (so a
 * factory that holds its whole decoder in closures counts as one). A stream machine is one closure
 * (its state as locals, its helpers inside) even when that is longer: such a function goes on the
 * justified list below rather than being split into a state bag. Exits 1 only for a function over the
 * limit that is not on the list.
 *
 * Run from `test/structure.test.ts` in `npm test`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_LINES = 400;

/**
 * Functions justified to run over the limit, `path:name` → why (one line). A machine read top to
 * bottom as one closure qualifies; a function that is long because it does several things does not.
 */
export const ALLOWED: Readonly<Record<string, string>> = {
  'packages/core/src/message/fold.ts:createMessageFold': 'the message fold is one machine: its state at the top, one helper per event kind',
  'packages/core/src/protocols/ws/reader.ts:createWsDecoder':
    'the agent:event reader is one machine: its state as locals, one helper per frame kind, one switch over the types',
  'packages/core/src/protocols/ai-sdk/reader.ts:createAiSdkDecoder':
    'the UI message stream reader is one machine: its state as locals, its block / tool / data helpers, one switch over the chunk types',
  'packages/core/src/protocols/ag-ui/reader.ts:createAgUiDecoder':
    'the AG-UI reader is one machine: its state as locals, one table of START / CONTENT / END families, one switch over the event types',
  'packages/core/src/protocols/ag-ui/encoder.ts:createAgUiEncoder':
    'the AG-UI encoder is one machine: its state as locals, open / close helpers per message kind, one switch over the canonical events',
};

/** One function or class over the limit. */
export interface LongFunction {
  file: string;
  name: string;
  lines: number;
  line: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The folders checked: every package's `src` and the web app's. */
export function roots(root = ROOT): string[] {
  const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(root, 'packages', e.name, 'src'));
  return [...packages, join(root, 'apps/web/src')];
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name)))
    return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name)))
    return parent.name.text;
  if (parent && ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return `<anonymous at line ${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}>`;
}

/** Functions and classes in one file longer than `max` lines. */
export function longFunctions(path: string, max = MAX_LINES, root = ROOT): LongFunction[] {
  const text = readFileSync(path, 'utf8');
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node) ||
      ts.isSetAccessor(node) ||
      ts.isClassDeclaration(node) ||
      ts.isClassExpression(node)
    ) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ file: relative(root, path), name: nameOf(node, sf), lines, line: start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Everything over the limit in the checked folders, allowed or not. */
export function checkFunctionLength(root = ROOT, max = MAX_LINES): { over: LongFunction[]; allowed: LongFunction[]; stale: string[] } {
  const all = roots(root).flatMap((dir) => sourceFiles(dir).flatMap((f) => longFunctions(f, max, root)));
  const key = (f: LongFunction) => `${f.file}:${f.name}`;
  const over = all.filter((f) => !Object.hasOwn(ALLOWED, key(f)));
  const allowed = all.filter((f) => Object.hasOwn(ALLOWED, key(f)));
  const stale = Object.keys(ALLOWED).filter((k) => !all.some((f) => key(f) === k));
  return { over, allowed, stale };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { over, allowed, stale } = checkFunctionLength();
  for (const f of allowed)
    console.warn(
      `warning: ${f.file}:${f.line} ${f.name} is ${f.lines} lines (over ${MAX_LINES}), justified: ${ALLOWED[`${f.file}:${f.name}`]}`,
    );
  for (const k of stale) console.log(`stale entry (no longer over ${MAX_LINES} lines): ${k}`);
  for (const f of over)
    console.error(
      `warning: ${f.file}:${f.line} ${f.name} is ${f.lines} lines (over ${MAX_LINES}) and not on the justified list: make it shorter or justify it in ALLOWED`,
    );
  process.exitCode = over.length > 0 ? 1 : 0;
}
