/**
 * Syntax highlighting with Shiki, loaded on first use (its own chunk, and one chunk per language):
 * the main bundle stays small and a page without code never downloads a grammar. The JavaScript
 * regex engine avoids WebAssembly (the page's CSP allows only same-origin scripts, no `wasm-eval`).
 *
 * Tokens carry both themes' colors as CSS variables (`--shiki-light`, `--shiki-dark`); styles.css
 * picks one by `prefers-color-scheme`. They are set through the CSSOM (React's `style`), which the
 * CSP's `style-src 'self'` allows, unlike inline `style` attributes in HTML.
 */
import type { HighlighterCore, LanguageInput } from 'shiki/core';

/** Grammars this UI loads, by Shiki name. Anything else shows as plain text. */
const LANGS: Record<string, () => Promise<{ default: LanguageInput }>> = {
  python: () => import('shiki/langs/python.mjs'),
  javascript: () => import('shiki/langs/javascript.mjs'),
  typescript: () => import('shiki/langs/typescript.mjs'),
  tsx: () => import('shiki/langs/tsx.mjs'),
  jsx: () => import('shiki/langs/jsx.mjs'),
  json: () => import('shiki/langs/json.mjs'),
  bash: () => import('shiki/langs/bash.mjs'),
  shellsession: () => import('shiki/langs/shellsession.mjs'),
  sql: () => import('shiki/langs/sql.mjs'),
  yaml: () => import('shiki/langs/yaml.mjs'),
  html: () => import('shiki/langs/html.mjs'),
  css: () => import('shiki/langs/css.mjs'),
  markdown: () => import('shiki/langs/markdown.mjs'),
  go: () => import('shiki/langs/go.mjs'),
  rust: () => import('shiki/langs/rust.mjs'),
  java: () => import('shiki/langs/java.mjs'),
  c: () => import('shiki/langs/c.mjs'),
  diff: () => import('shiki/langs/diff.mjs'),
  toml: () => import('shiki/langs/toml.mjs'),
};

const ALIASES: Record<string, string> = {
  py: 'python',
  python3: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  node: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'shellsession',
  yml: 'yaml',
  md: 'markdown',
  golang: 'go',
  rs: 'rust',
  h: 'c',
  patch: 'diff',
};

/** The Shiki grammar for a fence's language or a file name's extension, if this UI has it. */
export function grammarOf(lang: string): string | undefined {
  const l = lang.toLowerCase();
  const name = ALIASES[l] ?? l;
  return name in LANGS ? name : undefined;
}

/** One highlighted token: its text and its colors in both themes. */
export interface Token {
  content: string;
  light?: string;
  dark?: string;
  italic?: boolean;
}

let core: Promise<HighlighterCore> | undefined;
const loaded = new Map<string, Promise<void>>();

async function highlighter(): Promise<HighlighterCore> {
  core ??= (async () => {
    const [{ createHighlighterCore }, { createJavaScriptRegexEngine }, light, dark] = await Promise.all([
      import('shiki/core'),
      import('shiki/engine/javascript'),
      import('shiki/themes/github-light.mjs'),
      import('shiki/themes/github-dark.mjs'),
    ]);
    return createHighlighterCore({ themes: [light.default, dark.default], langs: [], engine: createJavaScriptRegexEngine() });
  })();
  return core;
}

/** Lines of tokens for `code` in `lang` (a name `grammarOf` knows). */
export async function highlight(code: string, lang: string): Promise<Token[][]> {
  const h = await highlighter();
  let ready = loaded.get(lang);
  if (!ready) {
    ready = LANGS[lang]().then((m) => h.loadLanguage(m.default));
    loaded.set(lang, ready);
  }
  await ready;
  const { tokens } = h.codeToTokens(code, { lang, themes: { light: 'github-light', dark: 'github-dark' }, defaultColor: false });
  return tokens.map((line) =>
    line.map((t) => {
      const style = t.htmlStyle ?? {};
      const out: Token = { content: t.content };
      if (style['--shiki-light']) out.light = style['--shiki-light'];
      if (style['--shiki-dark']) out.dark = style['--shiki-dark'];
      if ((t.fontStyle ?? 0) & 1) out.italic = true;
      return out;
    }),
  );
}
