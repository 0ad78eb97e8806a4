/**
 * Markdown → safe HTML. Agent output is untrusted: raw HTML in it is shown as text (never parsed),
 * images become links (nothing is fetched from elsewhere), and the HTML marked produces goes
 * through DOMPurify before it reaches the page, which drops scripts, event handlers and
 * `javascript:` URLs whatever the input was.
 */
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

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

/** Renders one markdown block to sanitized HTML. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false });
  return purifier().sanitize(html, PURIFY_CONFIG);
}
