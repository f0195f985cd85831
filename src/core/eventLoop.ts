/**
 * A turn of the event loop given back: long work on the editor's thread (10,000 terminals, a
 * month of notes) goes on in slices, and a timer, an I/O callback or a keystroke waiting runs
 * between them.
 */
export const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));
