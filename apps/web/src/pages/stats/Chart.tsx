import { useEffect, useRef, useState } from 'react';
import type uPlot from 'uplot';

import type { Schemas } from '../../api';
import { formatCount, formatPeriod, formatRange, Interval } from './range';

type Point = Schemas['SeriesPointView'];

const PER: Record<Interval, string> = { day: 'day', week: 'week', month: 'month' };

/** Seconds since 1970 of a UTC day (uPlot's x values). */
const secondsOf = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/** A CSS variable of the page's theme (light or dark), as the chart's canvas needs a colour. */
function themeColour(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

/** `#rrggbb` with an alpha (`55`); other colour syntaxes as they are. */
const withAlpha = (colour: string, alpha: string) =>
  /^#[0-9a-f]{6}$/i.test(colour) ? `${colour}${alpha}` : colour;

/**
 * The series as a line chart (uPlot, loaded with `import()` on first use), clicks and unique
 * visitors, as wide as its box (a ResizeObserver follows it) and in the theme's colours (redrawn
 * when the theme changes). The figure is one image for assistive technology, named with what it
 * shows ("Clicks per day, 1 Nov – 28 Nov 2026: 42 in total"); the numbers are also in a table
 * under "Show as table".
 */
export function ClicksChart(props: {
  series: Point[];
  interval: Interval;
  from: string;
  to: string;
  clicks: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  const { series, interval } = props;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    let stopped = false;
    const observer = new ResizeObserver(() => {
      if (plot && el.clientWidth > 0) plot.setSize(size(el));
    });
    const dark = window.matchMedia('(prefers-color-scheme: dark)');
    let UPlot: typeof uPlot | null = null;

    const draw = () => {
      if (!UPlot || stopped) return;
      plot?.destroy();
      plot = new UPlot(options(UPlot, size(el), series), dataOf(series), el);
    };
    dark.addEventListener('change', draw);
    import('./uplot')
      .then((mod) => {
        UPlot = mod.default;
        draw();
        observer.observe(el);
      })
      .catch(() => {
        if (!stopped) setFailed(true);
      });
    return () => {
      stopped = true;
      observer.disconnect();
      dark.removeEventListener('change', draw);
      plot?.destroy();
    };
  }, [series]);

  const label = `Clicks per ${PER[interval]}, ${formatRange(props.from, props.to)}: ${formatCount(props.clicks)} in total`;
  return (
    <div className="stats-chart">
      <figure role="img" aria-label={label} className="chart">
        <div ref={box} className="chart-box" />
        {failed && (
          <p className="hint">The chart could not be drawn; the table below has the numbers.</p>
        )}
        <p className="chart-legend">
          <span className="key key-clicks" /> Clicks <span className="key key-unique" /> Unique
          visitors
        </p>
      </figure>
      <details className="chart-table">
        <summary>Show as table</summary>
        <div className="table-wrap">
          <table>
            <caption>{label}</caption>
            <thead>
              <tr>
                <th scope="col">
                  {interval === 'day' ? 'Day' : interval === 'week' ? 'Week' : 'Month'}
                </th>
                <th scope="col">Clicks</th>
                <th scope="col">Unique visitors</th>
              </tr>
            </thead>
            <tbody>
              {series.map((p) => (
                <tr key={p.date}>
                  <th scope="row">{formatPeriod(p.date, interval)}</th>
                  <td>{formatCount(p.clicks)}</td>
                  <td>{p.uniqueClicks === null ? '—' : formatCount(p.uniqueClicks)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </div>
  );
}

function size(el: HTMLElement): { width: number; height: number } {
  const width = Math.max(200, Math.floor(el.clientWidth));
  return { width, height: width < 500 ? 200 : 260 };
}

function dataOf(series: Point[]): uPlot.AlignedData {
  return [
    series.map((p) => secondsOf(p.date)),
    series.map((p) => p.clicks),
    series.map((p) => p.uniqueClicks),
  ];
}

function options(
  UPlot: typeof uPlot,
  dims: { width: number; height: number },
  series: Point[],
): uPlot.Options {
  const fg = themeColour('--fg', '#1a1a1a');
  const muted = themeColour('--muted', '#555555');
  const border = themeColour('--border', '#8a8a8a');
  const accent = themeColour('--accent', '#0b57d0');
  const xs = series.map((p) => secondsOf(p.date));
  const first = xs[0] ?? 0;
  const last = xs[xs.length - 1] ?? first;
  const axis = {
    stroke: fg,
    grid: { stroke: withAlpha(border, '55'), width: 1 },
    ticks: { stroke: border, width: 1 },
  };
  return {
    ...dims,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    // the series' days are UTC days
    tzDate: (ts) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: {
      // one period alone still gets a width around it
      x: {
        time: true,
        range: () => (first === last ? [first - 43200, last + 43200] : [first, last]),
      },
      y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
    },
    axes: [
      { ...axis, values: undefined },
      {
        ...axis,
        // whole visits only
        values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? v.toLocaleString() : '')),
        size: 48,
      },
    ],
    series: [
      {},
      {
        label: 'Clicks',
        stroke: accent,
        width: 2,
        fill: withAlpha(accent, '22'),
        points: { show: series.length <= 45, size: 5, fill: accent },
      },
      {
        label: 'Unique visitors',
        stroke: muted,
        width: 2,
        dash: [6, 4],
        points: { show: false },
      },
    ],
  };
}
