/**
 * Best-effort parse of JSON text that was cut off (a tool input truncated by max_tokens or a dead
 * stream): keeps every complete member, closes an open string value, drops a dangling key / comma /
 * partial literal, and closes the open containers. One linear pass; used once per tool call, never per
 * delta.
 */

/** The value recovered from possibly incomplete JSON text. */
export interface PartialJson {
  /** The parsed value (`undefined` when nothing could be recovered). */
  value: unknown;
  /** True when the text was complete, valid JSON. */
  complete: boolean;
}

type Frame = { kind: '{' | '['; expect: 'key' | 'colon' | 'value' | 'comma' };

/** Parses JSON text that may have been cut off anywhere. */
export function parsePartialJson(text: string): PartialJson {
  try {
    return { value: JSON.parse(text), complete: true };
  } catch {
    // fall through to the repair below
  }
  const stack: Frame[] = [];
  let safe = -1; // text.slice(0, safe) + closers(safe) is valid JSON
  let safeClosers = '';
  let inString = false;
  let stringIsKey = false;
  let stringStart = 0;
  let i = 0;
  const closers = () => {
    let s = '';
    for (let k = stack.length - 1; k >= 0; k--) s += (stack[k] as Frame).kind === '{' ? '}' : ']';
    return s;
  };
  const valueDone = (end: number) => {
    const top = stack.at(-1);
    if (top) top.expect = 'comma';
    safe = end;
    safeClosers = closers();
  };
  const n = text.length;
  while (i < n) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') i += 2;
      else if (c === '"') {
        inString = false;
        i++;
        if (stringIsKey) (stack.at(-1) as Frame).expect = 'colon';
        else valueDone(i);
      } else i++;
      continue;
    }
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
      continue;
    }
    const top = stack.at(-1);
    if (c === '"') {
      inString = true;
      stringIsKey = top?.kind === '{' && top.expect === 'key';
      stringStart = i;
      i++;
    } else if (c === '{' || c === '[') {
      stack.push({ kind: c, expect: c === '{' ? 'key' : 'value' });
      i++;
      safe = i;
      safeClosers = closers();
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
      valueDone(i);
    } else if (c === ':') {
      if (top) top.expect = 'value';
      i++;
    } else if (c === ',') {
      if (top) top.expect = top.kind === '{' ? 'key' : 'value';
      i++;
    } else {
      // number or literal
      let j = i;
      while (j < n && !',}] \n\r\t'.includes(text[j] as string)) j++;
      const token = text.slice(i, j);
      if (j < n || /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/.test(token)) {
        if (j === n && !/\d$|^(true|false|null)$/.test(token)) break;
        valueDone(j);
      }
      i = j;
    }
  }
  let repaired: string | undefined;
  if (inString && !stringIsKey) {
    // An open string value: keep what arrived, minus a half escape sequence.
    const body = text.slice(stringStart).replace(/\\(u[0-9a-fA-F]{0,3})?$/, '');
    repaired = `${text.slice(0, stringStart)}${body}"${closers()}`;
  }
  for (const candidate of [repaired, safe >= 0 ? text.slice(0, safe) + safeClosers : undefined]) {
    if (candidate === undefined) continue;
    try {
      return { value: JSON.parse(candidate), complete: false };
    } catch {
      // try the next, more conservative cut
    }
  }
  return { value: undefined, complete: false };
}
