/**
 * The block rules, for inputs that send loose content rather than blocks (agents' JSON lines,
 * `<think>` tags):
 * - status opens (or continues) a processing block and closes an open thinking block;
 * - thinking opens (or continues) a thinking block and closes an open processing block;
 * - text closes every reasoning block and opens (or continues) a text block.
 * Every encoder therefore sees well-formed blocks and gets these rules for free.
 */
import type { Emitter } from '../model/emitter.ts';
import type { Json, ProviderMetadata, ReasoningVariant } from '../model/events.ts';

export class BlockAssembler {
  private readonly out: Emitter;
  private readonly prefix: string;
  private count = 0;
  private text: string | undefined;
  private processing: string | undefined;
  private thinking: string | undefined;
  /** Whether the open reasoning block already has content (for separators between entries). */
  private hasContent = false;
  /** providerMetadata collected for the open thinking block, sent on its reasoning-end. */
  private thinkingMeta: ProviderMetadata | undefined;

  /** @param prefix Block ids are `${prefix}${n}`, unique within the run. */
  constructor(out: Emitter, prefix = 'b') {
    this.out = out;
    this.prefix = prefix;
  }

  private open(kind: 'text' | ReasoningVariant): string {
    const id = `${this.prefix}${++this.count}`;
    if (kind === 'text') {
      this.text = id;
      this.out.emit({ type: 'text-start', blockId: id });
    } else {
      if (kind === 'processing') this.processing = id;
      else this.thinking = id;
      this.hasContent = false;
      this.out.emit({ type: 'reasoning-start', blockId: id, variant: kind });
    }
    return id;
  }

  /** A status line: goes to the processing block, one line per status. */
  status(message: string): void {
    this.closeText();
    this.closeThinking();
    const id = this.processing ?? this.open('processing');
    this.out.emit({ type: 'reasoning-delta', blockId: id, delta: this.hasContent ? `\n${message}` : message });
    this.hasContent = true;
  }

  /**
   * Thinking content. `separate` marks a whole entry (a `think` reflection, a subagent note) that
   * goes on its own paragraph; without it the text is a streamed fragment appended as is.
   */
  thinkingText(text: string, separate = false): void {
    this.closeText();
    this.closeProcessing();
    const id = this.thinking ?? this.open('thinking');
    this.writeThinking(id, text, separate);
  }

  /**
   * Thinking content with an id of the agent's own (a think-tool call id): the id is collected on the
   * block and sent, under `providerMetadata[provider][key]` as a list, with its reasoning-end.
   */
  thinkingEntry(text: string, provider: string, key: string, value: Json): void {
    this.thinkingText(text, true);
    const meta: ProviderMetadata = this.thinkingMeta ?? {};
    const forProvider = meta[provider] ?? {};
    const list = Array.isArray(forProvider[key]) ? (forProvider[key] as Json[]) : [];
    list.push(value);
    forProvider[key] = list;
    meta[provider] = forProvider;
    this.thinkingMeta = meta;
  }

  private writeThinking(id: string, text: string, separate: boolean): void {
    const delta = separate && this.hasContent ? `\n\n${text}` : text;
    if (delta) this.out.emit({ type: 'reasoning-delta', blockId: id, delta });
    this.hasContent ||= text.length > 0;
  }

  /** Answer text: closes all reasoning. */
  textDelta(text: string): void {
    this.closeReasoning();
    const id = this.text ?? this.open('text');
    if (text) this.out.emit({ type: 'text-delta', blockId: id, delta: text });
  }

  closeText(): void {
    if (this.text === undefined) return;
    this.out.emit({ type: 'text-end', blockId: this.text });
    this.text = undefined;
  }

  closeProcessing(): void {
    if (this.processing === undefined) return;
    this.out.emit({ type: 'reasoning-end', blockId: this.processing });
    this.processing = undefined;
  }

  closeThinking(): void {
    if (this.thinking === undefined) return;
    const meta = this.thinkingMeta;
    this.out.emit(
      meta ? { type: 'reasoning-end', blockId: this.thinking, providerMetadata: meta } : { type: 'reasoning-end', blockId: this.thinking },
    );
    this.thinking = undefined;
    this.thinkingMeta = undefined;
  }

  closeReasoning(): void {
    this.closeProcessing();
    this.closeThinking();
  }

  /** Closes everything that is open (before a tool call, an error, the end). */
  closeAll(): void {
    this.closeReasoning();
    this.closeText();
  }
}
