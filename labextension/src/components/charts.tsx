/**
 * Time charts with uPlot (a small canvas charting library, fast with many
 * points): a sparkline for a job's row, and a chart with axes and a legend
 * for a job's devices or a queue's use. Colours come from JupyterLab's
 * theme variables, read again when the theme changes.
 */
import * as React from 'react';
import uPlot from 'uplot';

/** (unix seconds, value) */
export type Point = [number, number];

export interface ISeries {
  label: string;
  points: Point[];
}

const PALETTE = [
  '--jp-brand-color1',
  '--jp-warn-color1',
  '--jp-success-color1',
  '--jp-error-color1',
  '--jp-brand-color3',
  '--jp-ui-font-color2'
];

function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.body).getPropertyValue(name).trim();
  return value || fallback;
}

/** The theme's name, so charts draw again in the new colours when it changes. */
function useTheme(): string {
  const read = (): string => document.body.dataset.jpThemeName ?? '';
  const [theme, setTheme] = React.useState(read);
  React.useEffect(() => {
    const observer = new MutationObserver(() => setTheme(read()));
    observer.observe(document.body, {
      attributes: true,
      attributeFilter: ['data-jp-theme-name']
    });
    return () => observer.disconnect();
  }, []);
  return theme;
}

/** Columnar data for uPlot: one x axis (the union of the series' times). */
export function aligned(series: ISeries[]): uPlot.AlignedData {
  const times = Array.from(
    new Set(series.flatMap(s => s.points.map(p => p[0])))
  ).sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  const columns = series.map(s => {
    const column: (number | null)[] = new Array(times.length).fill(null);
    for (const [t, v] of s.points) {
      column[index.get(t)!] = v;
    }
    return column;
  });
  return [times, ...columns] as uPlot.AlignedData;
}

function useChart(
  make: (el: HTMLElement) => uPlot,
  deps: React.DependencyList
): React.RefObject<HTMLDivElement> {
  const ref = React.useRef<HTMLDivElement>(null);
  React.useEffect(() => {
    const el = ref.current;
    if (!el) {
      return;
    }
    const chart = make(el);
    return () => chart.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return ref;
}

/** A job's mean utilization over the window, in its row. */
export function Sparkline(props: {
  points: Point[];
  label: string;
  max?: number;
}): JSX.Element {
  const theme = useTheme();
  const key = JSON.stringify(props.points);
  const ref = useChart(
    el =>
      new uPlot(
        {
          width: 90,
          height: 20,
          legend: { show: false },
          cursor: { show: false },
          select: { show: false, left: 0, top: 0, width: 0, height: 0 },
          axes: [{ show: false }, { show: false }],
          scales: { x: { time: false }, y: { range: [0, props.max ?? 100] } },
          series: [
            {},
            {
              stroke: cssVar('--jp-brand-color1', '#1976d2'),
              fill: cssVar('--jp-brand-color3', 'rgba(25,118,210,0.15)'),
              width: 1
            }
          ]
        },
        aligned([{ label: props.label, points: props.points }]),
        el
      ),
    [key, theme, props.max]
  );
  return (
    <div
      ref={ref}
      className="jp-accel-sparkline"
      role="img"
      aria-label={props.label}
      title={props.label}
    />
  );
}

/** Series over time with axes and a legend (a job's devices, a queue's use). */
export function TimeChart(props: {
  series: ISeries[];
  unit: string;
  max?: number;
  label: string;
  height?: number;
}): JSX.Element {
  const theme = useTheme();
  const key = JSON.stringify(props.series);
  const [width, setWidth] = React.useState(320);
  const outer = React.useRef<HTMLDivElement>(null);
  React.useEffect(() => {
    const el = outer.current;
    if (!el || typeof ResizeObserver === 'undefined') {
      return;
    }
    const observer = new ResizeObserver(entries => {
      const w = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (w > 0) {
        setWidth(w);
      }
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  const ref = useChart(
    el => {
      const axis = cssVar('--jp-ui-font-color2', '#616161');
      const grid = cssVar('--jp-border-color2', '#e0e0e0');
      const font = `10px ${cssVar('--jp-ui-font-family', 'sans-serif')}`;
      return new uPlot(
        {
          width,
          height: props.height ?? 140,
          scales: {
            y:
              props.max !== undefined
                ? { range: [0, props.max] }
                : { range: (_u, lo, hi) => [Math.min(0, lo), Math.max(1, hi)] }
          },
          axes: [
            { stroke: axis, grid: { stroke: grid, width: 1 }, font },
            {
              stroke: axis,
              grid: { stroke: grid, width: 1 },
              font,
              size: 52,
              values: (_u, ticks) => ticks.map(t => `${t} ${props.unit}`)
            }
          ],
          series: [
            {},
            ...props.series.map((s, i) => ({
              label: s.label,
              stroke: cssVar(PALETTE[i % PALETTE.length], '#1976d2'),
              width: 1.5,
              value: (_u: uPlot, v: number | null) =>
                v === null ? '—' : `${v.toFixed(1)} ${props.unit}`
            }))
          ]
        },
        aligned(props.series),
        el
      );
    },
    [key, theme, width, props.max, props.unit, props.height]
  );
  return (
    <div ref={outer} className="jp-accel-chart">
      <div ref={ref} role="img" aria-label={props.label} />
    </div>
  );
}
