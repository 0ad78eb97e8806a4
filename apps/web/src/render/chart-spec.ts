/**
 * Chart placeholders (as in the Observability Assistant UI): agent text may contain `<<{...}>>`, a
 * JSON object describing a chart. The data is inline (`data`, `series`, `values`) or comes from a
 * tool call's output (`toolCallId`, e.g. a PromQL query result). Both are turned into plain series
 * of (x, y) points; the chart itself is drawn as SVG (Chart.tsx).
 */
import { isRecord } from '../lib/types.ts';

export interface Series {
  name: string;
  points: [number, number][];
  /** Category names of the points, when the data named them (`[["Mon", 3], …]`, `{label, value}`): the bar labels. */
  labels?: string[];
}

export interface ChartSpec {
  kind: 'line' | 'bar';
  title?: string;
  series: Series[];
  /** x values are times (ms since the epoch). */
  time: boolean;
  /** The tool call the data came from. */
  toolCallId?: string;
}

export type Segment = { kind: 'text'; text: string } | { kind: 'chart'; json: string } | { kind: 'pending' };

const PLACEHOLDER = /<<(\{[\s\S]*?\})>>/g;

/**
 * Splits text into markdown and chart placeholders. While the text streams, an unfinished `<<{…`
 * at the end is held back (a `pending` segment) instead of flashing as raw JSON.
 */
export function splitPlaceholders(text: string, streaming: boolean): Segment[] {
  if (!text.includes('<<') && !(streaming && text.endsWith('<'))) return [{ kind: 'text', text }];
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ kind: 'text', text: text.slice(last, at) });
    out.push({ kind: 'chart', json: m[1] });
    last = at + m[0].length;
  }
  let rest = text.slice(last);
  if (streaming) {
    const open = rest.lastIndexOf('<<{');
    const partial = rest.endsWith('<<') ? rest.length - 2 : rest.endsWith('<') ? rest.length - 1 : -1;
    const cut = open !== -1 ? open : partial;
    if (cut !== -1) {
      if (cut > 0) out.push({ kind: 'text', text: rest.slice(0, cut) });
      if (open !== -1) out.push({ kind: 'pending' });
      rest = '';
    }
  }
  if (rest) out.push({ kind: 'text', text: rest });
  return out;
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    if (Number.isFinite(n)) return n;
    const t = Date.parse(v);
    if (Number.isFinite(t)) return t;
  }
  return undefined;
}

/** Points from `[y, …]`, `[[x, y], …]` or `[{x, y}, …]` (also `{t|time|timestamp, value|v}`); a non-numeric x is a category. */
function pointsOf(v: unknown): ([number, number][] & { labels?: string[] }) | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: [number, number][] & { labels?: string[] } = [];
  const labels: string[] = [];
  v.forEach((p, i) => {
    let x: number | undefined;
    let y: number | undefined;
    let category: unknown;
    if (Array.isArray(p)) {
      x = num(p[0]);
      y = num(p[1]);
      if (x === undefined && typeof p[0] === 'string') category = p[0];
    } else if (isRecord(p)) {
      x = num(p.x ?? p.t ?? p.time ?? p.timestamp ?? p.date ?? p.label);
      y = num(p.y ?? p.value ?? p.v ?? p.count);
      if (x === undefined) category = [p.label, p.name, p.x, p.category].find((c) => typeof c === 'string');
    } else {
      x = i;
      y = num(p);
    }
    if (x === undefined && typeof category === 'string') x = out.length;
    if (x !== undefined && y !== undefined) {
      out.push([x, y]);
      labels.push(typeof category === 'string' ? category : '');
    }
  });
  if (labels.some((l) => l !== '')) out.labels = labels;
  return out;
}

function metricName(metric: unknown, fallback: string): string {
  if (!isRecord(metric)) return fallback;
  const { __name__, ...labels } = metric;
  const inner = Object.entries(labels)
    .map(([k, v]) => `${k}="${String(v)}"`)
    .join(', ');
  const name = typeof __name__ === 'string' ? __name__ : '';
  return name || inner ? `${name}${inner ? `{${inner}}` : ''}` : fallback;
}

/** Series from a data value: inline forms, Prometheus `{data: {result: [...]}}` or `{result: [...]}`. */
export function seriesOf(data: unknown): Series[] {
  if (typeof data === 'string') {
    try {
      return seriesOf(JSON.parse(data));
    } catch {
      return [];
    }
  }
  const direct = pointsOf(data);
  if (direct?.length) {
    // An array of series objects is not an array of points.
    if (
      Array.isArray(data) &&
      data.every((d) => isRecord(d) && (Array.isArray(d.points) || Array.isArray(d.data) || Array.isArray(d.values)))
    )
      return data.flatMap((d, i) => seriesFrom(d as Record<string, unknown>, `series ${i + 1}`));
    return [{ name: 'value', points: direct, ...(direct.labels ? { labels: direct.labels } : {}) }];
  }
  if (Array.isArray(data)) return data.flatMap((d, i) => (isRecord(d) ? seriesFrom(d, `series ${i + 1}`) : []));
  if (!isRecord(data)) return [];
  if (Array.isArray(data.series)) return data.series.flatMap((d, i) => (isRecord(d) ? seriesFrom(d, `series ${i + 1}`) : []));
  if (isRecord(data.data)) return seriesOf(data.data);
  if (Array.isArray(data.result)) return seriesOf(data.result);
  return seriesFrom(data, 'value');
}

function seriesFrom(d: Record<string, unknown>, fallback: string): Series[] {
  const name = typeof d.name === 'string' ? d.name : typeof d.label === 'string' ? d.label : metricName(d.metric, fallback);
  const raw = d.points ?? d.values ?? d.data ?? (d.value !== undefined ? [d.value] : undefined);
  const points = pointsOf(raw);
  return points?.length ? [{ name, points, ...(points.labels ? { labels: points.labels } : {}) }] : [];
}

/** Reads a placeholder's JSON; `tool` finds a tool call's output by id. */
export function parseChart(json: string, tool: (id: string) => unknown): ChartSpec | { error: string } {
  let spec: unknown;
  try {
    spec = JSON.parse(json);
  } catch (err) {
    return { error: `chart placeholder is not valid JSON (${(err as Error).message})` };
  }
  if (!isRecord(spec)) return { error: 'chart placeholder is not a JSON object' };
  const kindText = String(spec.chart ?? spec.kind ?? spec.type ?? 'line').toLowerCase();
  const kind = kindText.includes('bar') || kindText.includes('column') ? 'bar' : 'line';
  const toolCallId = [spec.toolCallId, spec.tool_call_id, spec.toolId, spec.id].find((v): v is string => typeof v === 'string');
  let series: Series[] = [];
  const inline = spec.series ?? spec.data ?? spec.values ?? spec.points;
  if (inline !== undefined) series = seriesOf(Array.isArray(spec.series) ? { series: spec.series } : inline);
  if (!series.length && toolCallId) {
    const output = tool(toolCallId);
    if (output === undefined) return { error: `waiting for the output of tool call ${toolCallId}` };
    series = seriesOf(output);
  }
  if (!series.length) return { error: 'chart placeholder has no data points' };
  const title = [spec.title, spec.query, spec.promql, spec.name].find((v): v is string => typeof v === 'string');
  // Seconds or milliseconds since the epoch (Prometheus uses seconds).
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const time =
    spec.time === true || kindText.includes('promql') || kindText.includes('time') || xs.every((x) => x > 946684800 && x < 4102444800e3);
  if (time && xs.every((x) => x < 4102444800)) for (const s of series) for (const p of s.points) p[0] *= 1000;
  return { kind, series, time, ...(title ? { title } : {}), ...(toolCallId ? { toolCallId } : {}) };
}
