/**
 * Incremental block splitting for streaming markdown. A growing text is cut into finished blocks
 * (ended by a blank line outside a code fence, and followed by a line that does not continue the
 * block) and a tail still being written. Each call scans only the lines added since the last one,
 * so splitting a text delivered in n deltas costs O(total length), and the renderer re-parses only
 * the tail: finished blocks keep their rendered HTML.
 */

export interface SplitState {
  /** The text this state describes. */
  readonly text: string;
  /** Bumped whenever splitting starts over (the text was replaced, not extended). */
  readonly gen: number;
  /** Finished blocks, in order; each one ends with the blank line that closed it. */
  readonly blocks: string[];
  /** Offset of the first line not scanned yet (the start of an incomplete last line). */
  pos: number;
  /** Offset where the current (unfinished) block starts. */
  blockStart: number;
  /** True once the current block has a non-blank line. */
  hasContent: boolean;
  /** Open code fence: its character and length. */
  fence: { ch: string; len: number } | null;
  /** End of the blank line that may end the current block (-1: none yet). */
  boundary: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const BLANK = /^[ \t]*$/;

function fresh(text: string, gen: number): SplitState {
  return { text, gen, blocks: [], pos: 0, blockStart: 0, hasContent: false, fence: null, boundary: -1 };
}

/**
 * Splits `text`, reusing `prev` when `text` extends the text `prev` describes (the streaming case);
 * otherwise starts over. `prev` is not modified.
 */
export function splitMarkdown(prev: SplitState | undefined, text: string): SplitState {
  const s: SplitState =
    prev && text.length >= prev.text.length && text.startsWith(prev.text)
      ? { ...prev, text, blocks: prev.blocks.slice() }
      : fresh(text, (prev?.gen ?? 0) + 1);
  let i = s.pos;
  for (let nl = text.indexOf('\n', i); nl !== -1; nl = text.indexOf('\n', i)) {
    const line = text.slice(i, nl);
    if (s.fence) {
      const m = FENCE.exec(line);
      if (m && m[1][0] === s.fence.ch && m[1].length >= s.fence.len && BLANK.test(m[2])) s.fence = null;
    } else if (BLANK.test(line)) {
      if (s.hasContent && s.boundary === -1) s.boundary = nl + 1;
    } else {
      if (s.boundary !== -1) {
        // A line that starts indented may continue the block (a list item's next paragraph).
        if (line[0] !== ' ' && line[0] !== '\t') {
          s.blocks.push(text.slice(s.blockStart, s.boundary));
          s.blockStart = s.boundary;
        }
        s.boundary = -1;
      }
      s.hasContent = true;
      const m = FENCE.exec(line);
      // A backtick fence's info string cannot contain a backtick.
      if (m && !(m[1][0] === '`' && m[2].includes('`'))) s.fence = { ch: m[1][0], len: m[1].length };
    }
    i = nl + 1;
  }
  s.pos = i;
  return s;
}

/** The unfinished last block. */
export function tailOf(s: SplitState): string {
  return s.text.slice(s.blockStart);
}
