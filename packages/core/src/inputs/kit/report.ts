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

/** Extra fields of a reported error. */
export interface ErrorExtra {
  /** Goes to `providerMetadata[<metaKey>]`. */
  meta?: JsonObject | undefined;
  /** The subagent the error belongs to. */
  subagentId?: string | undefined;
}

/** What a decoder built on {@link Kit.decoder} supplies. */
export interface DecoderParts {
  /** Decodes one parsed value; emits through the kit's emitter. */
  push(value: unknown, where?: Location): void;
  /** Closes the run at the end of the input; called only while the run is not finished yet. */
  finish(): void;
  /** Input that could not be framed; default: a located, non-fatal error. */
  fault?(code: string, message: string, where: Location): void;
}

/**
 * One decoder's emitter with its reporting helpers. `source` names the framework on `raw` events
 * and `run-start`; `metaKey` is the providerMetadata key of error metadata (default `source`).
 */
export class Kit {
  readonly out: Emitter;
  readonly source: string;
  readonly metaKey: string;

  /** Around a new emitter for `options`, or around the emitter a decoder shares with another. */
  constructor(options: DecoderOptions | Emitter, source: string, metaKey: string = source) {
    this.out = options instanceof Emitter ? options : new Emitter(options, source);
    this.source = source;
    this.metaKey = metaKey;
  }

  /** Emits an `error` event (non-fatal unless `fatal`), located at `where`. */
  error(code: string, message: string, where?: Location, fatal = false, extra?: ErrorExtra): void {
    const e: EventInit = { type: 'error', code, message, fatal };
    if (where) e.where = where;
    if (extra?.meta) e.providerMetadata = { [this.metaKey]: extra.meta };
    if (extra?.subagentId) e.subagentId = extra.subagentId;
    this.out.emit(e);
  }

  /** A field of the right input value holds the wrong thing: `<where, field>: expected <expected>`. */
  invalid(where: Location | undefined, field: string, expected: string): void {
    const loc = at(where, field, expected);
    this.error('invalid_field', `${describe(loc)}: expected ${expected}`, loc);
  }

  /** Like {@link invalid}, naming what was there instead: `…: expected <expected>, got <kind>`. */
  mismatch(where: Location | undefined, field: string, expected: string, got: unknown): void {
    this.error('invalid_field', `${describe(at(where, field))}: expected ${expected}, got ${kindOf(got)}`, at(where, field, expected));
  }

  /** Keeps a well-formed value the decoder has no mapping for as a `raw` event (lossless). */
  raw(event: unknown, reason: string, where?: Location, subagentId?: string): void {
    const e: EventInit = { type: 'raw', source: this.source, event: event as Json, reason };
    if (where) e.where = where;
    if (subagentId) e.subagentId = subagentId;
    this.out.emit(e);
  }

  /**
   * The envelope guard: the value as an object, or undefined after reporting
   * `<where>: expected a JSON object <shape>, got <kind>` (`shape` e.g. `with a "type"`).
   */
  object(value: unknown, where: Location | undefined, shape: string): Obj | undefined {
    if (isObject(value)) return value;
    this.error('invalid_event', `${describe(where ?? {})}: expected a JSON object ${shape}, got ${kindOf(value)}`, {
      ...where,
      expected: 'object',
    });
    return undefined;
  }

  /** The input ended early: a fatal `truncated` error. */
  truncated(message: string): void {
    this.error('truncated', message, undefined, true);
  }

  /** The input held nothing of this framework: a fatal `empty` error. */
  empty(message: string): void {
    this.error('empty', message, undefined, true);
  }

  /**
   * The decoder shell: `push` and `fault` report through this kit and return what was emitted;
   * `end` calls `finish` once unless the run has already finished.
   */
  decoder(parts: DecoderParts): Decoder {
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
        if (!out.finished) parts.finish();
        return out.take();
      },
    };
  }
}
