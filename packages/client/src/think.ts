/**
 * Streaming `<think>` / `<thinking>` extraction for the timeline (seed 002): text deltas in, the text
 * outside the think sections and the sections themselves out, incrementally — each delta costs its own
 * length (plus a possible partial tag held back), never the text so far.
 *
 * The rules are those of the store's history (`extractThinkTags`), so a live message and its reload
 * give the same timeline: tags `<think>` / `<thinking>` (any case, optional whitespace before `>`); a
 * closing tag outside a section stays text; inside a section only its own closing tag ends it; an
 * unclosed section runs to the end; the outside text is trimmed when there was a section.
 */
import { TextBuffer, type WorkCounter } from '@switchboard/core';

/** What the splitter has so far. */
export interface ThinkSplit {
  /** The text outside the think sections (trimmed when there were sections). */
  content: string;
  /** The sections, in order (the last one still open when `open`). */
  thinking: string[];
  /** True while a section is open. */
  open: boolean;
}

type TagMatch = { kind: 'tag'; length: number; closing: boolean; name: 'think' | 'thinking' } | { kind: 'partial' } | { kind: 'none' };

const isSpace = (c: string) => /\s/.test(c);

/** Tries `<` `/`? `word` whitespace* `>` at the start of `s`. */
function tryWord(s: string, word: 'think' | 'thinking'): TagMatch {
  let i = 1;
  if (i >= s.length) return { kind: 'partial' };
  const closing = s[i] === '/';
  if (closing) i++;
  for (let k = 0; k < word.length; k++) {
    if (i + k >= s.length) return { kind: 'partial' };
    if (s[i + k].toLowerCase() !== word[k]) return { kind: 'none' };
  }
  let j = i + word.length;
  while (j < s.length && isSpace(s[j])) j++;
  if (j >= s.length) return { kind: 'partial' };
  return s[j] === '>' ? { kind: 'tag', length: j + 1, closing, name: word } : { kind: 'none' };
}

/** Whether `s` (starting with `<`) begins with a think tag, could still become one, or cannot. */
function matchTag(s: string): TagMatch {
  const a = tryWord(s, 'think');
  if (a.kind === 'tag') return a;
  const b = tryWord(s, 'thinking');
  if (b.kind === 'tag') return b;
  return a.kind === 'partial' || b.kind === 'partial' ? { kind: 'partial' } : { kind: 'none' };
}

/** An incremental think-tag splitter. */
export class ThinkSplitter {
  private readonly outside: TextBuffer;
  private readonly sections: TextBuffer[] = [];
  private openName: 'think' | 'thinking' | undefined;
  private hold = '';
  private readonly work: WorkCounter | undefined;

  constructor(work?: WorkCounter) {
    this.work = work;
    this.outside = new TextBuffer('', work);
  }

  private target(): TextBuffer {
    return this.openName ? (this.sections.at(-1) as TextBuffer) : this.outside;
  }

  /** Feeds a delta. */
  push(delta: string): void {
    let s = this.hold === '' ? delta : this.hold + delta;
    this.hold = '';
    while (s.length > 0) {
      const lt = s.indexOf('<');
      if (lt === -1) {
        this.target().append(s);
        return;
      }
      if (lt > 0) this.target().append(s.slice(0, lt));
      s = s.slice(lt);
      const m = matchTag(s);
      if (m.kind === 'partial') {
        this.hold = s;
        return;
      }
      if (m.kind === 'none') {
        this.target().append('<');
        s = s.slice(1);
        continue;
      }
      const tag = s.slice(0, m.length);
      s = s.slice(m.length);
      if (!this.openName) {
        if (m.closing) this.outside.append(tag);
        else {
          this.openName = m.name;
          this.sections.push(new TextBuffer('', this.work));
        }
      } else if (m.closing && m.name === this.openName) this.openName = undefined;
      else this.target().append(tag);
    }
  }

  /** The input is over: a held partial tag is text. */
  end(): void {
    if (this.hold !== '') {
      this.target().append(this.hold);
      this.hold = '';
    }
  }

  /** The split so far (a partial tag at the end is not shown yet). */
  get split(): ThinkSplit {
    const raw = this.outside.toString();
    const thinking = this.sections.map((b) => b.toString());
    return { content: thinking.length > 0 ? raw.trim() : raw, thinking, open: this.openName !== undefined };
  }
}

/** Splits a whole text at once (the same rules). */
export function splitThinkTags(text: string): ThinkSplit {
  const s = new ThinkSplitter();
  s.push(text);
  s.end();
  return s.split;
}
