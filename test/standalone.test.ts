/**
 * The repository stands alone: no tracked file reaches outside it. A fixture, a script or a doc that
 * names a sibling `shared` folder through `..`, or an absolute path of one machine (its workspace
 * folder, a home folder), works on that machine and fails on a fresh clone. Fixtures the tests need
 * are copied into test/fixtures/ with their provenance (test/fixtures/SOURCES.md).
 *
 * Recorded third-party captures (test/fixtures/recorded/) are data kept byte for byte: paths inside
 * them are what a provider's sandbox printed, not references, so they are not scanned.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What must not appear, each with why. Built from parts so that this file does not match itself. */
const FORBIDDEN: [RegExp, string][] = [
  [new RegExp(['(\\.\\./)+', 'shared', '/'].join('')), 'a sibling shared folder outside the repository'],
  [new RegExp(['(^|[^\\w.-])/', 'work', '/'].join('')), 'an absolute workspace path'],
  [new RegExp(['(^|[^\\w.-])/(home|Users)/', '[A-Za-z]'].join('')), 'an absolute home-folder path'],
];

const SKIP = [/^test\/fixtures\/recorded\//];

/** Tracked files (git ls-files), or every file but dependencies and build output outside a git checkout. */
function repositoryFiles(): string[] {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\0')
      .filter(Boolean);
  } catch {
    const out: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (['node_modules', 'dist', 'web', '.git', 'data'].includes(entry.name)) continue;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.isFile()) out.push(relative(ROOT, path));
      }
    };
    walk(ROOT);
    return out;
  }
}

test('no tracked file references a sibling shared folder or an absolute machine path', () => {
  const files = repositoryFiles().filter((f) => !SKIP.some((s) => s.test(f)));
  assert.ok(files.length > 100, `only ${files.length} files found under ${ROOT}`);
  const offences: string[] = [];
  for (const file of files) {
    const path = join(ROOT, file);
    // A file deleted in the work tree but still in the index is not this checkout's problem.
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [pattern, what] of FORBIDDEN)
        if (pattern.test(line)) offences.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
    });
  }
  assert.deepEqual(offences, []);
});
