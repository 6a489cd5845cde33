/**
 * The dashboard's time chart, drawn by uPlot (canvas, ~20 kB gzip, loaded with this module on
 * first use). Two series on their own axes: clicks (a solid line) and conversions (a dashed line
 * with points), told apart by pattern and by the legend's words as well as by colour. The numbers
 * themselves are in the table the page offers beside it.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface TrendPoint {
  label: string;
  clicks: number;
  conversions: number;
}

const cssVar = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

export function TrendChart({ points, description }: { points: TrendPoint[]; description: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const accent = cssVar('--accent', '#4338ca');
    const second = cssVar('--success', '#166534');
    const muted = cssVar('--muted', '#545b66');
    const grid = cssVar('--border', '#e2e5ea');
    const labels = points.map((p) => p.label);
    const data: uPlot.AlignedData = [points.map((_, i) => i), points.map((p) => p.clicks), points.map((p) => p.conversions)];
    const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const atLeastOne = (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, Math.max(1, Math.ceil(max * 1.1))];
    const chart = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 260,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false }, clicks: { range: atLeastOne }, conversions: { range: atLeastOne } },
        axes: [
          {
            ...axis,
            splits: (_u, _i, min, max) => {
              const step = Math.max(1, Math.ceil((max - min + 1) / 8));
              const out: number[] = [];
              for (let i = Math.ceil(min); i <= max; i += step) out.push(i);
              return out;
            },
            values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
          },
          { ...axis, scale: 'clicks', label: 'Clicks', values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? v.toLocaleString() : '')) },
          {
            ...axis,
            scale: 'conversions',
            side: 1,
            label: 'Conversions',
            grid: { show: false },
            values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? v.toLocaleString() : '')),
          },
        ],
        series: [
          { label: 'Period', value: (_u, i) => labels[i] ?? '' },
          { label: 'Clicks', scale: 'clicks', stroke: accent, width: 2, points: { show: false } },
          { label: 'Conversions', scale: 'conversions', stroke: second, width: 2, dash: [6, 4], points: { show: true, size: 6, fill: second } },
        ],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, el.clientWidth), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [points]);

  return (
    <figure className="trend">
      <div ref={box} className="trend-canvas" role="img" aria-label={description} />
      <figcaption>
        <ul className="trend-legend">
          <li>
            <span className="trend-swatch trend-swatch-solid" aria-hidden="true" /> Clicks (solid line, left axis)
          </li>
          <li>
            <span className="trend-swatch trend-swatch-dashed" aria-hidden="true" /> Conversions (dashed line with points, right axis)
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}
