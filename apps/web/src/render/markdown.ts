/**
 * Markdown → safe HTML. Agent output is untrusted: raw HTML in it is shown as text (never parsed),
 * images become links (nothing is fetched from elsewhere), and the HTML marked produces goes
 * through DOMPurify before it reaches the page, which drops scripts, event handlers and
 * `javascript:` URLs whatever the input was.
 */
import DOMPurify from 'dompurify';
import { Marked, type Token, type Tokens } from 'marked';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c]);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML blocks and inline tags: as text.
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    // An image would be a request to wherever the agent says: show a link instead.
    image(token: Tokens.Image): string {
      const label = escapeHtml(token.text || token.href);
      return `<a href="${escapeHtml(token.href)}" class="md-image">🖼 ${label}</a>`;
    },
  },
});

let hooked = false;
function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A' && node.hasAttribute('href')) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    });
  }
  return DOMPurify;
}

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'img', 'form', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
  FORBID_ATTR: ['style', 'srcset'],
};

/** Renders markdown to sanitized HTML. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return purifier().sanitize(html, PURIFY_CONFIG);
}

/**
 * A citation marker inside text: `CITE_OPEN n CITE_CLOSE` (private-use characters, which no model
 * writes and marked passes through as text). After sanitizing, each one becomes a numbered link to
 * the message's source list (render/citations.ts numbers them).
 */
export const CITE_OPEN = '\uE000';
export const CITE_CLOSE = '\uE001';
const CITE = /\uE000(\d+)\uE001/g;

function withCitations(html: string, sourceIdPrefix: string | undefined): string {
  if (!html.includes(CITE_OPEN)) return html;
  if (!sourceIdPrefix) return html.replace(CITE, '');
  return html.replace(
    CITE,
    (_, n: string) => `<sup class="cite-ref"><a href="#${sourceIdPrefix}-${n}" data-cite="${n}" aria-label="Source ${n}">${n}</a></sup>`,
  );
}

/** One piece of a rendered block: sanitized HTML, or a fenced code block (drawn by CodeBlock). */
export type MarkdownPiece = { kind: 'html'; html: string } | { kind: 'code'; code: string; lang: string };

/**
 * Renders one markdown block as pieces: code blocks apart (they get highlighting, a language label
 * and a copy button in React), everything else as sanitized HTML with citation markers linked to
 * `#<sourceIdPrefix>-<n>`.
 */
export function renderPieces(text: string, sourceIdPrefix?: string): MarkdownPiece[] {
  const tokens = marked.lexer(text);
  const out: MarkdownPiece[] = [];
  let run: Token[] = [];
  const flush = () => {
    if (!run.length) return;
    // marked's parser needs the document's link definitions.
    const list = Object.assign(run, { links: tokens.links });
    const html = purifier().sanitize(marked.parser(list), PURIFY_CONFIG);
    out.push({ kind: 'html', html: withCitations(html, sourceIdPrefix) });
    run = [];
  };
  for (const t of tokens) {
    if (t.type === 'code' && (t as Tokens.Code).codeBlockStyle !== 'indented') {
      flush();
      const code = t as Tokens.Code;
      out.push({ kind: 'code', code: code.text.replace(CITE, ''), lang: (code.lang ?? '').trim().split(/\s/)[0] ?? '' });
    } else run.push(t);
  }
  flush();
  return out;
}
