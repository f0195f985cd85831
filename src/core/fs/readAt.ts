import * as fs from 'node:fs';

/** Up to `len` bytes of an open file from byte `at` (fewer at the end of the file), read whole. */
export function readAt(fd: number, at: number, len: number): Buffer {
  const b = Buffer.allocUnsafe(len);
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, b, got, len - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return b.subarray(0, got);
}
