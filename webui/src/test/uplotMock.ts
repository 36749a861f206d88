import { vi } from 'vitest';

// uPlot draws on a canvas that jsdom does not have; the tests check what it was given.
export const plots: { data: unknown[]; series: { label?: string }[] }[] = [];
vi.mock('uplot', () => ({
  default: class {
    data: unknown[];
    series: { label?: string }[];
    constructor(opts: { series: { label?: string }[] }, data: unknown[]) {
      this.data = data;
      this.series = opts.series;
      plots.push(this);
    }
    setData(d: unknown[]) {
      this.data = d;
    }
    setSize() {}
    destroy() {}
  },
}));
