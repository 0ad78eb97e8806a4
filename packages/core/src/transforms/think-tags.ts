/**
 * `<think>` tag extraction (seed 002): splits streamed text into answer text and the reasoning that
 * open models (DeepSeek-R1, QwQ, Qwen3, gpt-oss via some servers, …) write between `<think>` and
 * `</think>` in their content. A pure, incremental machine: tags may be split across chunks at any
 * character, and the result is the same however the text was split.
 *
 * Linear: only a possible partial tag (shorter than the tag) is held back between pushes; the rest of
 * each chunk is published at once.
 */

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
}

/** A streaming `<think>` extractor: `push` text, get classified segments; `end` flushes. */
export interface ThinkTagExtractor {
  push(text: string): ThinkSegment[];
  end(): ThinkSegment[];
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
  const onlyAtStart = options.onlyAtStart ?? false;
  let reasoning = options.startWithReasoning ?? false;
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
          const tagAhead =
            i < buf.length && (buf.startsWith(openTag, i) || (buf.length - i < openTag.length && openTag.startsWith(buf.slice(i))));
          if (!tagAhead) {
            // Only whitespace so far, or text that is not a think section: published as it came.
            if (i < buf.length) armed = false;
            emit(out, pos === 0 ? buf : buf.slice(pos));
            return out;
          }
          if (i > pos) emit(out, buf.slice(pos, i));
          pos = i;
          if (!buf.startsWith(openTag, pos)) {
            carry = buf.slice(pos); // a partial opening tag: wait for more
            return out;
          }
          armed = false;
          pos += openTag.length;
          reasoning = true;
          pendingOpen = true;
          disarmed = true;
          continue;
        }
      }
      const tag = reasoning ? closeTag : openTag;
      const i = buf.indexOf(tag, pos);
      if (i === -1) {
        const k = partialTagAtEnd(buf, pos, tag);
        emit(out, buf.slice(pos, buf.length - k));
        if (k > 0) carry = buf.slice(buf.length - k);
        return out;
      }
      if (reasoning) {
        emit(out, buf.slice(pos, i), true);
        reasoning = false;
        if (disarmed) {
          // onlyAtStart: the one section is over; the rest is text.
          const rest = buf.slice(i + tag.length);
          armed = false;
          emit(out, rest);
          return out;
        }
      } else {
        emit(out, buf.slice(pos, i));
        reasoning = true;
        pendingOpen = true;
      }
      pos = i + tag.length;
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
  };
}
