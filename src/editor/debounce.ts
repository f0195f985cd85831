import type * as vscode from 'vscode';

/**
 * Runs `fn` once, `ms` after the last call (trailing debounce); `flush()` runs a pending call now.
 * Disposing cancels a pending call. The one debounce of the editor glue: views, decorations and
 * status items use it instead of hand-written timers.
 */
export function debounce(fn: () => void, ms: number): (() => void) & vscode.Disposable & { flush(): void } {
  let timer: NodeJS.Timeout | undefined;
  const run = (): void => {
    timer = undefined;
    fn();
  };
  const call = Object.assign(
    () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(run, ms);
    },
    {
      flush(): void {
        if (!timer) return;
        clearTimeout(timer);
        run();
      },
      dispose(): void {
        if (timer) clearTimeout(timer);
        timer = undefined;
      },
    },
  );
  return call;
}
