/**
 * Example Switchboard agent for Node 24: echoes the last user message, showing every block kind.
 *
 * It reads the conversation from stdin and prints the simplified Claude agent format's JSON lines on
 * stdout through the TypeScript emitter (packages/server/emitters/emitter.ts): status lines (a
 * processing block), a todo list, thinking, a tool call with its result, and the answer streamed word
 * by word. Try it:
 *
 *   echo '{"messages":[{"id":"1","role":"user","parts":[{"type":"text","text":"hello"}]}]}' | node echo.ts
 *
 * Special messages: `crash` (part of an answer, then exit 1 with a stack trace), `hang` (part of an
 * answer, then waits forever), `error` (an error event, then a clean finish). ECHO_DELAY_MS paces
 * the events.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  emitDone,
  emitError,
  emitResult,
  emitStart,
  emitStatus,
  emitText,
  emitThinking,
  emitTodoCreate,
  emitTodoDone,
  emitToolResult,
  emitToolUse,
  lastUserText,
  log,
  newId,
  readRequest,
} from '../../packages/server/emitters/emitter.ts';

const DELAY = Number(process.env.ECHO_DELAY_MS ?? 0) || 0;

const pace = async (): Promise<void> => {
  if (DELAY > 0) await sleep(DELAY);
};

/** Word-sized pieces that join back to exactly `text`. */
const fragments = (text: string): string[] => text.match(/\s+|\S+\s*/g) ?? [];

async function main(): Promise<number> {
  const started = performance.now();
  const request = await readRequest();
  const text = lastUserText(request).trim();
  const command = text.toLowerCase();
  emitStart({ model: 'echo-ts', prompt_preview: text.slice(0, 80) });

  if (command === 'error') {
    emitStatus('Calling a flaky service…');
    emitError('The echo agent failed on purpose (you sent "error").', 'echo_error');
    await emitDone();
    return 0;
  }
  if (command === 'crash' || command === 'hang') {
    emitStatus('Starting…');
    for (const piece of fragments('This answer stops half-way ')) {
      emitText(piece);
      await pace();
    }
    if (command === 'crash') {
      log('echo.ts: about to crash on purpose');
      throw new Error('the echo agent crashed on purpose');
    }
    log('echo.ts: hanging on purpose');
    await new Promise(() => setInterval(() => {}, 3_600_000));
  }

  const words = text.split(/\s+/).filter(Boolean).length;
  emitStatus('Reading the conversation…');
  await pace();
  emitStatus(`${request.messages.length} message(s); the last one has ${words} word(s)`);
  await pace();
  emitTodoCreate([
    { content: 'Read the message', status: 'in_progress' },
    { content: 'Count the words', status: 'pending' },
    { content: 'Echo it back', status: 'pending' },
  ]);
  await pace();
  for (const piece of fragments(`The user wrote ${words} word(s). I will count them with a tool, then echo the message back.`)) {
    emitThinking(piece);
    await pace();
  }
  emitTodoDone(0);

  const call = newId('toolu');
  emitToolUse(call, 'count_words', { text });
  await pace();
  emitToolResult(call, { words, characters: text.length });
  emitTodoDone(1);
  await pace();

  const answer = text ? `You said: ${text}` : 'You said nothing.';
  for (const piece of fragments(answer)) {
    emitText(piece);
    await pace();
  }
  emitTodoDone(2);
  emitResult({
    duration_ms: Math.round(performance.now() - started),
    num_turns: 1,
    usage: { input_tokens: words, output_tokens: answer.split(/\s+/).length },
  });
  await emitDone();
  return 0;
}

process.exitCode = await main();
