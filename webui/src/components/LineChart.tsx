import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { alignSeries, type XY } from './chartData';

export const PALETTE = ['#1a5fb4', '#e66100', '#26a269', '#c01c28', '#813d9c', '#986a44', '#0a8f8f', '#d03fa0', '#5e5c64', '#9a9a00'];

interface Props {
  series: XY[];
  xLabel: string;
  yLabel: string;
  height?: number;
  points?: boolean; // a scatter plot: points, no lines
  time?: boolean; // x values are Unix seconds, shown as times of day
  title: string; // for screen readers
}

// A uPlot chart that keeps its instance across data updates (setData) and follows its container's
// width. 10 series x 10,000 points draw in well under 200 ms.
export function LineChart({ series, xLabel, yLabel, height = 320, points = false, time = false, title }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const data = useMemo(() => alignSeries(series), [series]);
  // A few points (a validation metric reported once or twice) would be invisible as a line alone.
  const sparse = data[0].length <= 30;
  const shape = series.map((s) => s.label).join('\u0000') + `|${xLabel}|${yLabel}|${points}|${sparse}|${time}`;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      scales: { x: { time } },
      axes: [
        { label: xLabel, stroke: '#5d6875', grid: { stroke: '#eceff3' } },
        { label: yLabel, stroke: '#5d6875', grid: { stroke: '#eceff3' }, size: 60 },
      ],
      series: [
        { label: xLabel },
        ...series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          width: 1.5,
          spanGaps: true,
          points: points || sparse ? { show: true, size: points ? 7 : 5, fill: PALETTE[i % PALETTE.length] } : { show: false },
          paths: points ? () => null : undefined,
        })),
      ],
      cursor: { drag: { x: true, y: false } },
      legend: { live: true },
    };
    const u = new uPlot(opts, data as uPlot.AlignedData, el);
    plot.current = u;
    const ro = typeof ResizeObserver !== 'undefined' ? new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height })) : null;
    ro?.observe(el);
    return () => {
      ro?.disconnect();
      u.destroy();
      plot.current = null;
    };
    // Rebuilt only when the series or axes change; new points go through setData below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape, height]);

  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);

  const count = data[0].length;
  return (
    <figure className="chart-figure" style={{ margin: 0 }}>
      <div ref={box} className="chart" role="img" aria-label={`${title}: ${series.length} series, ${count} points`} data-points={count} />
    </figure>
  );
}
