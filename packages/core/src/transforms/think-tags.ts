/**
 * `<think>` tag extraction: splits streamed text into answer text and the reasoning that open
 * models (DeepSeek-R1, QwQ, Qwen3, gpt-oss via some servers, …) write between `<think>` and
 * `</think>` in their content. A pure, incremental machine: tags may be split across chunks at any
 * character, and the result is the same however the text was split.
 *
 * Linear: only a possible partial tag (shorter than the tag) is held back between pushes; the rest of
 * each chunk is published at once.
 *
 * `ThinkSplitter` / `splitThinkTags` apply the extractor with the rules of stored text (named tags)
 * for the store's history and the client's timeline.
 */
import { TextBuffer, type WorkCounter } from './text-buffer.ts';

/** A piece of the input, classified. */
export interface ThinkSegment {
  kind: 'text' | 'reasoning';
  text: string;
  /** Reasoning only: this segment begins a new think section (an opening tag, or the start with `startWithReasoning`). */
  open?: true;
  /** Reasoning only: the closing tag came right after this segment's text; the section is over. */
  close?: true;
}

export interface ThinkTagOptions {
  /** Opening delimiter. Default `<think>`. */
  open?: string;
  /** Closing delimiter. Default `</think>`. */
  close?: string;
  /** The text starts inside a think section (models that omit the opening tag, e.g. DeepSeek-R1 distills). */
  startWithReasoning?: boolean;
  /**
   * Recognise a think section only at the very start of the text (after whitespace), and only one.
   * Safe to leave on for every stream: a model that writes about `<think>` later in its answer is not
   * affected. Default false (sections anywhere, any number, like the AI SDK's extractReasoningMiddleware).
   */
  onlyAtStart?: boolean;
  /**
   * Tag names instead of fixed delimiters: `<name>` opens a section and only the same name's
   * `</name>` closes it, any case, with optional whitespace before `>` (e.g. `['think', 'thinking']`,
   * the rules of stored text in the store's history and the client's timeline). Replaces `open` / `close`.
   */
  names?: readonly string[];
}

/** A streaming `<think>` extractor: `push` text, get classified segments; `end` flushes. */
export interface ThinkTagExtractor {
  push(text: string): ThinkSegment[];
  end(): ThinkSegment[];
  /** True while inside a think section (also right after an opening tag with no text yet). */
  readonly inside: boolean;
}

/** Where a tag was found: its index and length, and the name it opened (names mode). */
type Found = { at: number; length: number; name?: string };

/**
 * How tags are recognised. `find` looks from `pos` for the tag that switches the mode (an opening
 * tag outside a section, the closing tag inside one): found, or the index from which the rest could
 * still become one (held back), or nothing. `openingAt` tells whether an opening tag stands at `i`.
 */
interface TagMatcher {
  find(buf: string, pos: number, inside: string | undefined): Found | { partialAt: number } | undefined;
  openingAt(buf: string, i: number): Found | 'partial' | undefined;
}

/** Length of the longest suffix of `s` (from `from`) that is a proper prefix of `tag`. */
function partialTagAtEnd(s: string, from: number, tag: string): number {
  const max = Math.min(tag.length - 1, s.length - from);
  for (let k = max; k > 0; k--) {
    if (s.startsWith(tag.slice(0, k), s.length - k)) return k;
  }
  return 0;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11 || c === 0xa0 || c === 0xfeff;
}

/** Fixed delimiters (`<think>` … `</think>`), matched exactly. */
function delimiterMatcher(openTag: string, closeTag: string): TagMatcher {
  return {
    find(buf, pos, inside) {
      const tag = inside !== undefined ? closeTag : openTag;
      const i = buf.indexOf(tag, pos);
      if (i !== -1) return { at: i, length: tag.length };
      const k = partialTagAtEnd(buf, pos, tag);
      return k > 0 ? { partialAt: buf.length - k } : undefined;
    },
    openingAt(buf, i) {
      if (buf.startsWith(openTag, i)) return { at: i, length: openTag.length };
      return buf.length - i < openTag.length && openTag.startsWith(buf.slice(i)) ? 'partial' : undefined;
    },
  };
}

/** `<` `/`? name whitespace* `>` at `i`, any case: the tag, `partial` (the text ends first) or undefined. */
function nameTagAt(buf: string, i: number, name: string): { length: number; closing: boolean } | 'partial' | undefined {
  let j = i + 1;
  if (j >= buf.length) return 'partial';
  const closing = buf.charCodeAt(j) === 47; // '/'
  if (closing) j++;
  for (let k = 0; k < name.length; k++) {
    if (j + k >= buf.length) return 'partial';
    if (buf[j + k].toLowerCase() !== name[k]) return undefined;
  }
  j += name.length;
  while (j < buf.length && /\s/.test(buf[j])) j++;
  if (j >= buf.length) return 'partial';
  return buf[j] === '>' ? { length: j + 1 - i, closing } : undefined;
}

/** Named tags (`<think>`, `<THINKING >`, …): a section is closed only by its own name. */
function nameMatcher(names: readonly string[]): TagMatcher {
  const lower = names.map((n) => n.toLowerCase());
  /** The tag at `i` that switches the mode, `partial`, or undefined. */
  function at(buf: string, i: number, inside: string | undefined): Found | 'partial' | undefined {
    let partial = false;
    for (const name of inside !== undefined ? [inside] : lower) {
      const m = nameTagAt(buf, i, name);
      if (m === 'partial') partial = true;
      else if (m !== undefined && m.closing === (inside !== undefined)) return { at: i, length: m.length, name };
    }
    return partial ? 'partial' : undefined;
  }
  return {
    find(buf, pos, inside) {
      for (let i = buf.indexOf('<', pos); i !== -1; i = buf.indexOf('<', i + 1)) {
        const m = at(buf, i, inside);
        if (m === 'partial') return { partialAt: i };
        if (m !== undefined) return m;
      }
      return undefined;
    },
    openingAt: (buf, i) => (buf.charCodeAt(i) === 60 ? at(buf, i, undefined) : undefined),
  };
}

/**
 * Creates a `<think>` tag extractor.
 *
 * - Text before, between and after think sections is `text`; the content of a section is `reasoning`.
 * - An unclosed section runs to the end of the input (flushed by `end()`).
 * - A closing tag outside a section is kept as text (as the AI SDK middleware does); so is an opening
 *   tag inside a section (sections do not nest).
 * - A partial tag at the end of the input is content of the mode it was found in.
 * - An empty section (`<think></think>`) is one segment with empty text and both `open` and `close`;
 *   an opening tag at the very end with nothing after it yields nothing.
 *
 * @example
 * const x = createThinkTagExtractor();
 * x.push('<thi'); // []
 * x.push('nk>Plan</think>Answer'); // [{kind:'reasoning', text:'Plan', open:true, close:true}, {kind:'text', text:'Answer'}]
 */
export function createThinkTagExtractor(options: ThinkTagOptions = {}): ThinkTagExtractor {
  const openTag = options.open ?? '<think>';
  const closeTag = options.close ?? '</think>';
  if (openTag.length === 0 || closeTag.length === 0) throw new TypeError('think tag delimiters must not be empty');
  if (options.names !== undefined && (options.names.length === 0 || options.names.some((n) => n === '')))
    throw new TypeError('think tag names must not be empty');
  const matcher = options.names ? nameMatcher(options.names) : delimiterMatcher(openTag, closeTag);
  const onlyAtStart = options.onlyAtStart ?? false;
  let reasoning = options.startWithReasoning ?? false;
  /** The name of the open section (names mode; '' with fixed delimiters). */
  let openName = reasoning ? (options.names?.[0]?.toLowerCase() ?? '') : '';
  /** The next reasoning segment opens a section. */
  let pendingOpen = reasoning;
  /** onlyAtStart: still before any non-whitespace text (an opening tag may come). */
  let armed = onlyAtStart && !reasoning;
  /** onlyAtStart: the one section has been seen; everything from now on is text. */
  let disarmed = onlyAtStart && reasoning;
  let carry = '';

  function emit(out: ThinkSegment[], text: string, close = false): void {
    if (!reasoning) {
      if (text) out.push({ kind: 'text', text });
      return;
    }
    if (!text && !close) return;
    const s: ThinkSegment = { kind: 'reasoning', text };
    if (pendingOpen) {
      s.open = true;
      pendingOpen = false;
    }
    if (close) s.close = true;
    out.push(s);
  }

  function push(chunk: string): ThinkSegment[] {
    const out: ThinkSegment[] = [];
    const buf = carry ? carry + chunk : chunk;
    carry = '';
    let pos = 0;
    while (pos < buf.length) {
      if (!reasoning) {
        if (onlyAtStart && !armed) {
          // Past the start: plain text from here on.
          emit(out, pos === 0 ? buf : buf.slice(pos));
          return out;
        }
        if (armed) {
          let i = pos;
          while (i < buf.length && isSpace(buf.charCodeAt(i))) i++;
          const tag = i < buf.length ? matcher.openingAt(buf, i) : undefined;
          if (tag === undefined) {
            // Only whitespace so far, or text that is not a think section: published as it came.
            if (i < buf.length) armed = false;
            emit(out, pos === 0 ? buf : buf.slice(pos));
            return out;
          }
          if (i > pos) emit(out, buf.slice(pos, i));
          pos = i;
          if (tag === 'partial') {
            carry = buf.slice(pos); // a partial opening tag: wait for more
            return out;
          }
          armed = false;
          pos += tag.length;
          openName = tag.name ?? '';
          reasoning = true;
          pendingOpen = true;
          disarmed = true;
          continue;
        }
      }
      const found = matcher.find(buf, pos, reasoning ? openName : undefined);
      if (found === undefined || 'partialAt' in found) {
        const cut = found === undefined ? buf.length : found.partialAt;
        emit(out, buf.slice(pos, cut));
        if (cut < buf.length) carry = buf.slice(cut);
        return out;
      }
      const i = found.at;
      if (reasoning) {
        emit(out, buf.slice(pos, i), true);
        reasoning = false;
        if (disarmed) {
          // onlyAtStart: the one section is over; the rest is text.
          const rest = buf.slice(i + found.length);
          armed = false;
          emit(out, rest);
          return out;
        }
      } else {
        emit(out, buf.slice(pos, i));
        openName = found.name ?? '';
        reasoning = true;
        pendingOpen = true;
      }
      pos = i + found.length;
    }
    return out;
  }

  return {
    push,
    end() {
      const out: ThinkSegment[] = [];
      if (carry) emit(out, carry);
      carry = '';
      return out;
    },
    get inside() {
      return reasoning;
    },
  };
}

/** What a {@link ThinkSplitter} has so far. */
export interface ThinkSplit {
  /** The text outside the think sections (trimmed when there were sections). */
  content: string;
  /** The sections, in order (the last one still open when `open`). */
  thinking: string[];
  /** True while a section is open. */
  open: boolean;
}

/**
 * The `<think>` rules of stored and displayed text (the store's history, the client's timeline):
 * `<think>` / `<thinking>` in any case, optional whitespace before `>`, a section closed only by its
 * own name, the outside text trimmed when there was a section. A live message and its reload give
 * the same split, however the text was streamed.
 *
 * Incremental: each delta costs its own length (plus a partial tag held back), never the text so far;
 * the texts are joined only when `split` is read.
 */
export class ThinkSplitter {
  private readonly x = createThinkTagExtractor({ names: ['think', 'thinking'] });
  private readonly outside: TextBuffer;
  private readonly sections: TextBuffer[] = [];
  /** A section is open in `sections` (possibly still without text). */
  private opened = false;
  private readonly work: WorkCounter | undefined;

  constructor(work?: WorkCounter) {
    this.work = work;
    this.outside = new TextBuffer('', work);
  }

  private take(segments: ThinkSegment[]): void {
    for (const s of segments) {
      if (s.kind === 'text') {
        this.outside.append(s.text);
        continue;
      }
      if (s.open && !this.opened) this.sections.push(new TextBuffer('', this.work));
      (this.sections.at(-1) as TextBuffer).append(s.text);
      this.opened = !s.close;
    }
    // An opening tag with no text after it yet still opens a section.
    if (this.x.inside && !this.opened) {
      this.sections.push(new TextBuffer('', this.work));
      this.opened = true;
    }
  }

  /** Feeds a delta. */
  push(delta: string): void {
    this.take(this.x.push(delta));
  }

  /** The input is over: a held partial tag is text of the mode it was found in. */
  end(): void {
    this.take(this.x.end());
  }

  /** The split so far (a partial tag at the end is not shown yet). */
  get split(): ThinkSplit {
    const raw = this.outside.toString();
    const thinking = this.sections.map((b) => b.toString());
    return { content: thinking.length > 0 ? raw.trim() : raw, thinking, open: this.opened };
  }
}

/** Splits a whole text at once, with {@link ThinkSplitter}'s rules. */
export function splitThinkTags(text: string): ThinkSplit {
  const s = new ThinkSplitter();
  s.push(text);
  s.end();
  return s.split;
}
