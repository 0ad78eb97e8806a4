/**
 * The reporting half of the kit: located `error`, `invalid` and `raw` events, the envelope guard, and
 * the push / fault / end shell every decoder returns. One instance per decoder, around its emitter.
 */
import { describe } from '../../codec/framing.ts';
import type { DecoderOptions } from '../../model/emitter.ts';
import { Emitter } from '../../model/emitter.ts';
import type { EventInit, Json, JsonObject, Location } from '../../model/events.ts';
import { at, type Decoder } from '../decoder.ts';
import { isObject, kindOf, type Obj } from './read.ts';

/** What a decoder built on {@link Kit.decoder} supplies. */
export interface DecoderParts {
  /** Decodes one parsed value; emits through the kit's emitter. */
  push(value: unknown, where?: Location): void;
  /** Closes the run at the end of the input; called only while the run is not finished yet. */
  finish(): void;
  /** Runs first at the end of the input, finished or not (e.g. to decode values held back). */
  flush?(): void;
  /** Input that could not be framed; default: a located, non-fatal error. */
  fault?(code: string, message: string, where: Location): void;
}

/** The names a decoder goes by, when they differ. */
export interface KitNames {
  /** `source` of raw events. */
  source: string;
  /** `provider` on run-start (default: `source`). */
  provider?: string;
  /** providerMetadata key of error metadata (default: `provider`). */
  metaKey?: string;
}

/**
 * One decoder's emitter with its reporting helpers (arrow properties: destructure them freely,
 * `const { out, error, raw } = new Kit(options, 'anthropic')`). `names` is the framework name
 * (raw source, run-start provider and error-metadata key at once), or {@link KitNames}.
 */
export class Kit {
  readonly out: Emitter;
  readonly source: string;
  readonly metaKey: string;

  /** Around a new emitter for `options`, or around the emitter a decoder shares with another. */
  constructor(options: DecoderOptions | Emitter, names: string | KitNames) {
    const n = typeof names === 'string' ? { source: names } : names;
    const provider = n.provider ?? n.source;
    this.out = options instanceof Emitter ? options : new Emitter(options, provider);
    this.source = n.source;
    this.metaKey = n.metaKey ?? provider;
  }

  /** Emits one event; a subclass may stamp it first (the kit's own events go through here). */
  emit(e: EventInit): void {
    this.out.emit(e);
  }

  /**
   * Emits an `error` event (non-fatal unless `fatal`), located at `where`; `meta` goes to
   * `providerMetadata[metaKey]`, `subagentId` marks the subagent it belongs to.
   */
  readonly error = (code: string, message: string, where?: Location, fatal = false, meta?: JsonObject, subagentId?: string): void => {
    const e: EventInit = { type: 'error', code, message, fatal };
    if (where) e.where = where;
    if (meta) e.providerMetadata = { [this.metaKey]: meta };
    if (subagentId) e.subagentId = subagentId;
    this.emit(e);
  };

  /**
   * A field of the right input value holds the wrong thing: `<where, field>: expected <expected>`
   * (code `invalid_field`, or a more precise one such as `missing_field`).
   */
  readonly invalid = (where: Location | undefined, field: string, expected: string, code = 'invalid_field'): void => {
    this.invalidAt(at(where, field, expected), expected, code);
  };

  /** Like {@link invalid}, at a location already built (e.g. with `sub`). */
  readonly invalidAt = (loc: Location, expected: string, code = 'invalid_field'): void => {
    this.error(code, `${describe(loc)}: expected ${expected}`, loc);
  };

  /** Like {@link invalid}, naming what was there instead: `…: expected <expected>, got <kind>`. */
  readonly mismatch = (where: Location | undefined, field: string, expected: string, got: unknown): void => {
    this.error('invalid_field', `${describe(at(where, field))}: expected ${expected}, got ${kindOf(got)}`, at(where, field, expected));
  };

  /** Keeps a well-formed value the decoder has no mapping for as a `raw` event (lossless). */
  readonly raw = (event: unknown, reason: string, where?: Location, subagentId?: string): void => {
    const e: EventInit = { type: 'raw', source: this.source, event: event as Json, reason };
    if (where) e.where = where;
    if (subagentId) e.subagentId = subagentId;
    this.emit(e);
  };

  /**
   * The envelope guard: the value as an object, or undefined after reporting
   * `<where>: expected <what>, got <kind>` (code `invalid_event`).
   */
  readonly object = (value: unknown, where: Location | undefined, what = 'a JSON object with a "type"'): Obj | undefined => {
    if (isObject(value)) return value;
    this.error('invalid_event', `${describe(where ?? {})}: expected ${what}, got ${kindOf(value)}`, {
      ...where,
      expected: 'object',
    });
    return undefined;
  };

  /** The input ended early: a fatal `truncated` error. */
  readonly truncated = (message: string): void => {
    this.error('truncated', message, undefined, true);
  };

  /** The input held nothing of this framework: a fatal `empty` error. */
  readonly empty = (message: string): void => {
    this.error('empty', message, undefined, true);
  };

  /**
   * The decoder shell: `push` and `fault` report through this kit and return what was emitted;
   * `end` calls `flush`, then `finish` unless the run has already finished.
   */
  readonly decoder = (parts: DecoderParts): Decoder => {
    const out = this.out;
    return {
      push: (value, where) => {
        parts.push(value, where);
        return out.take();
      },
      fault: (code, message, where) => {
        if (parts.fault) parts.fault(code, message, where);
        else this.error(code, message, where);
        return out.take();
      },
      end: () => {
        parts.flush?.();
        if (!out.finished) parts.finish();
        return out.take();
      },
    };
  };
}
