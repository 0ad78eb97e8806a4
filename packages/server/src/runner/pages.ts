/**
 * A run's events a page at a time: the runners produce the events of one agent step (in-process) or
 * one stdout chunk (process) together, and the gateway's pump takes them together — one await per
 * page instead of one per event through each async layer. `next()` still hands them out one by one
 * to consumers that want events.
 */
import type { CanonicalEvent } from '@switchboard/core';

/** Pages of events read as events (`next`) or as pages (`nextPage`). */
export class Pages {
  private readonly pages: AsyncGenerator<CanonicalEvent[], undefined>;
  /** The page being read event by event, and where. */
  private page: CanonicalEvent[] = [];
  private at = 0;

  constructor(pages: AsyncGenerator<CanonicalEvent[], undefined>) {
    this.pages = pages;
  }

  /** The next event. */
  async next(): Promise<IteratorResult<CanonicalEvent, undefined>> {
    while (this.at >= this.page.length) {
      const r = await this.pages.next();
      if (r.done) return r;
      this.page = r.value;
      this.at = 0;
    }
    return { done: false, value: this.page[this.at++] };
  }

  /** The next events: what is left of a page read by `next`, else the next page (never empty). */
  nextPage(): Promise<IteratorResult<CanonicalEvent[], undefined>> {
    if (this.at < this.page.length) {
      const rest = this.page.slice(this.at);
      this.at = this.page.length;
      return Promise.resolve({ done: false, value: rest });
    }
    return this.pages.next();
  }

  /** Stops the pages' generator (its `finally` runs). */
  async return(): Promise<IteratorResult<CanonicalEvent, undefined>> {
    this.page = [];
    this.at = 0;
    await this.pages.return(undefined);
    return { done: true, value: undefined };
  }

  /** Throws into the pages' generator; an event it still gives is handed out as `next` would. */
  async throw(err?: unknown): Promise<IteratorResult<CanonicalEvent, undefined>> {
    const r = await this.pages.throw(err);
    if (r.done) return r;
    this.page = r.value;
    this.at = 0;
    return this.next();
  }
}
