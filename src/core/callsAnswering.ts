/**
 * Tool calls this process is answering now (invokeTool counts them), so work that a call leaves for
 * later runs once its answer is out: the terminal catalog's reads of the N.txt a first call left
 * unread (12,000 of them at bench row 20's L) held up the listing's own reads when they started
 * during its answer.
 */
let answering = 0;
let waiting: (() => void)[] = [];

/** A tool call starts being answered; call the function returned when its answer is out. */
export function callAnswering(): () => void {
  answering++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--answering > 0) return;
    const go = waiting;
    waiting = [];
    for (const f of go) f();
  };
}

/** Resolves when no tool call is being answered (at once when none is). */
export function afterCalls(): Promise<void> {
  return answering === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
}
