/**
 * The sources a final answer lists (smolagents' `sources`, DeepSearchAgents' `answer_sources`).
 */
import type { EventInit, JsonObject } from '../../model/events.ts';
import { isObject, str } from './read.ts';
import type { Kit } from './report.ts';

/**
 * Emits one `source` event per listed source, with the id `<stepId>:source<i>`. A source is a string
 * or an object with a `url` / `link` / `href` and a `title` / `name`: an http(s) URL becomes a `url`
 * source; anything else a `document` source titled by what it has (its title, its URL or its JSON),
 * with the object kept in `providerMetadata[kit.metaKey]` so nothing is lost.
 */
export function emitAnswerSources(kit: Kit, stepId: string, sources: readonly unknown[]): void {
  sources.forEach((src, i) => {
    const sourceId = `${stepId}:source${i}`;
    const o = isObject(src) ? src : {};
    const url = typeof src === 'string' ? src : (str(o, 'url') ?? str(o, 'link') ?? str(o, 'href'));
    const title = str(o, 'title') ?? str(o, 'name');
    if (url !== undefined && /^https?:\/\//i.test(url)) {
      const e: EventInit = { type: 'source', sourceId, kind: 'url', url };
      if (title !== undefined) e.title = title;
      kit.emit(e);
      return;
    }
    const e: EventInit = { type: 'source', sourceId, kind: 'document', title: title ?? url ?? JSON.stringify(src) };
    if (isObject(src)) e.providerMetadata = { [kit.metaKey]: src as JsonObject };
    kit.emit(e);
  });
}
