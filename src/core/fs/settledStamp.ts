/** Moved to fs/stamps.ts (one module for "has this file or folder changed?"); kept for the terminal modules until they import it from there. */
export { RACY_MS, sameStamp, settledStamp, stampOf, type FolderStamp } from './stamps';
