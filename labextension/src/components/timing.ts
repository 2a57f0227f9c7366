/**
 * User Timing entries for the sidebar's long lists, so a browser test, or a
 * user's own profiler, sees what one render of N rows costs:
 * `jupyter-accel:render:<name>` spans from the start of the render to the
 * first moment after the browser painted it (style, layout and paint
 * included, not only React's commit).
 */
import * as React from 'react';

export const RENDER_PREFIX = 'jupyter-accel:render:';

/** Call first thing in a component's render; `rows` is recorded with it. */
export function useRenderTiming(name: string, rows: number): void {
  const start = `${RENDER_PREFIX}${name}:start`;
  if (typeof performance !== 'undefined' && performance.mark) {
    performance.mark(start);
  }
  React.useLayoutEffect(() => {
    if (
      typeof performance === 'undefined' ||
      !performance.measure ||
      typeof requestAnimationFrame === 'undefined'
    ) {
      return;
    }
    // rAF runs just before the next paint; a task queued from it runs after
    requestAnimationFrame(() =>
      setTimeout(() => {
        try {
          performance.measure(`${RENDER_PREFIX}${name}`, {
            start,
            detail: { rows }
          });
        } catch {
          // the start mark was cleared (a profiler reset): nothing to measure
        }
      }, 0)
    );
  });
}
