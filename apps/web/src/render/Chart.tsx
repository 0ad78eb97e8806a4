/**
 * A small SVG chart for `<<{...}>>` placeholders (as in the Observability Assistant UI): lines or
 * bars, min / max labels, a legend. No chart library: a few dozen elements are all a chat answer
 * needs.
 */
import { createContext, useContext, useMemo } from 'react';

import { type ChartSpec, parseChart } from './chart-spec.ts';

/** Finds a tool call's output in the message being rendered (for charts fed by a tool). */
export const ToolOutputContext = createContext<(toolCallId: string) => unknown>(() => undefined);

const W = 560;
const H = 200;
const PAD = { l: 48, r: 12, t: 10, b: 26 };
const COLORS = ['#3b82f6', '#ef4444', '#10b981', '#f59e0b', '#8b5cf6', '#ec4899', '#14b8a6', '#64748b'];

function fmt(n: number): string {
  const a = Math.abs(n);
  if (a !== 0 && (a >= 1e6 || a < 1e-2)) return n.toExponential(1);
  return Number.isInteger(n) ? String(n) : n.toFixed(a < 10 ? 2 : 1);
}

function fmtX(x: number, time: boolean): string {
  if (!time) return fmt(x);
  const d = new Date(x);
  return Number.isNaN(d.getTime()) ? fmt(x) : d.toISOString().slice(11, 19);
}

function Plot({ spec }: { spec: ChartSpec }) {
  const all = spec.series.flatMap((s) => s.points);
  let [x0, x1] = [Math.min(...all.map((p) => p[0])), Math.max(...all.map((p) => p[0]))];
  let [y0, y1] = [Math.min(0, ...all.map((p) => p[1])), Math.max(...all.map((p) => p[1]))];
  if (x0 === x1) [x0, x1] = [x0 - 1, x1 + 1];
  if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
  const sx = (x: number) => PAD.l + ((x - x0) / (x1 - x0)) * (W - PAD.l - PAD.r);
  const sy = (y: number) => H - PAD.b - ((y - y0) / (y1 - y0)) * (H - PAD.t - PAD.b);
  const n = Math.max(...spec.series.map((s) => s.points.length));
  const slot = (W - PAD.l - PAD.r) / Math.max(1, n);
  const barW = Math.max(1, (slot * 0.8) / spec.series.length);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} className="chart-svg" role="img" aria-label={spec.title ?? 'chart'}>
      <line x1={PAD.l} y1={H - PAD.b} x2={W - PAD.r} y2={H - PAD.b} className="axis" />
      <line x1={PAD.l} y1={PAD.t} x2={PAD.l} y2={H - PAD.b} className="axis" />
      <text x={PAD.l - 4} y={sy(y1) + 4} textAnchor="end" className="tick">
        {fmt(y1)}
      </text>
      <text x={PAD.l - 4} y={sy(y0)} textAnchor="end" className="tick">
        {fmt(y0)}
      </text>
      {spec.kind === 'bar' && n <= 24 ? (
        // Bars are categories: each one gets its own label, under it.
        spec.series[0].points.map((p, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: points have no identity of their own
          <text key={i} x={PAD.l + i * slot + slot / 2} y={H - 8} textAnchor="middle" className="tick">
            {spec.series[0].labels?.[i] || fmtX(p[0], spec.time)}
          </text>
        ))
      ) : (
        <>
          <text x={PAD.l} y={H - 8} className="tick">
            {fmtX(x0, spec.time)}
          </text>
          <text x={W - PAD.r} y={H - 8} textAnchor="end" className="tick">
            {fmtX(x1, spec.time)}
          </text>
        </>
      )}
      {spec.series.map((s, si) =>
        spec.kind === 'bar' ? (
          <g key={s.name} fill={COLORS[si % COLORS.length]}>
            {s.points.map((p, i) => {
              const y = sy(Math.max(0, p[1]));
              const h = Math.abs(sy(p[1]) - sy(0));
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: points have no identity of their own
                <rect key={i} x={PAD.l + i * slot + slot * 0.1 + si * barW} y={y} width={barW} height={Math.max(0.5, h)}>
                  <title>{`${s.name}: ${fmt(p[1])}`}</title>
                </rect>
              );
            })}
          </g>
        ) : (
          <polyline
            key={s.name}
            fill="none"
            stroke={COLORS[si % COLORS.length]}
            strokeWidth={2}
            points={s.points.map((p) => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(' ')}
          />
        ),
      )}
    </svg>
  );
}

export function Chart({ json }: { json: string }) {
  const tool = useContext(ToolOutputContext);
  const spec = useMemo(() => parseChart(json, tool), [json, tool]);
  if ('error' in spec)
    return (
      <div className="chart chart-error" data-testid="chart">
        <span className="muted">Chart: {spec.error}</span>
        <pre>{json}</pre>
      </div>
    );
  return (
    <figure className="chart" data-testid="chart" data-kind={spec.kind}>
      {spec.title ? <figcaption>{spec.title}</figcaption> : null}
      <Plot spec={spec} />
      {spec.series.length > 1 ? (
        <div className="legend">
          {spec.series.map((s, i) => (
            <span key={s.name}>
              <i style={{ background: COLORS[i % COLORS.length] }} />
              {s.name}
            </span>
          ))}
        </div>
      ) : null}
    </figure>
  );
}

export function PendingChart() {
  return <div className="chart chart-pending muted">Preparing a chart…</div>;
}
