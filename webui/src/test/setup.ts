import '@testing-library/jest-dom/vitest';
import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/react';

afterEach(() => cleanup());

// jsdom lays nothing out; virtualized lists need a viewport with a size to render rows into.
Object.defineProperty(HTMLElement.prototype, 'offsetHeight', { configurable: true, get: () => 800 });
Object.defineProperty(Element.prototype, 'clientHeight', { configurable: true, get: () => 800 });
Object.defineProperty(Element.prototype, 'clientWidth', { configurable: true, get: () => 1200 });
Object.defineProperty(HTMLElement.prototype, 'offsetWidth', { configurable: true, get: () => 1200 });
HTMLElement.prototype.getBoundingClientRect = function () {
  return { x: 0, y: 0, top: 0, left: 0, bottom: 800, right: 1200, width: 1200, height: 800, toJSON: () => ({}) } as DOMRect;
};
