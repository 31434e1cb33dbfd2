/**
 * Reading files named by configs and users without trusting them: only
 * regular files (a FIFO would hang the host, /dev/zero never ends), opened
 * without blocking, read asynchronously in chunks and stopped at a limit
 * (`stat` sizes lie for /proc files and devices). Standard input is read only
 * when asked for by name.
 */
import fs from 'node:fs';

/** Why a file could not be read: the OS error code, `not_regular_file`, or `too_large`. */
export class FileReadError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'FileReadError';
  }
}

const CHUNK = 64 * 1024;

/** The bytes of a regular file, at most `maxBytes`; rejects with a FileReadError otherwise. */
export async function readBoundedFile(file: string, maxBytes: number): Promise<Buffer> {
  let handle: fs.promises.FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new FileReadError((error as NodeJS.ErrnoException).code ?? 'error');
  }
  try {
    if (!(await handle.stat()).isFile()) throw new FileReadError('not_regular_file');
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, CHUNK, null));
      } catch (error) {
        throw new FileReadError((error as NodeJS.ErrnoException).code ?? 'error');
      }
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      total += bytesRead;
      if (total > maxBytes) throw new FileReadError('too_large');
      chunks.push(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Everything on `stream` (standard input), at most `maxBytes`; rejects with FileReadError('too_large') beyond. */
export function readBoundedStream(stream: NodeJS.ReadableStream & { destroy?(): void }, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (error?: Error) => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buffer.length;
      if (total > maxBytes) {
        stream.pause();
        stream.destroy?.();
        done(new FileReadError('too_large'));
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => done();
    const onError = (error: NodeJS.ErrnoException) => done(new FileReadError(error.code ?? 'error'));
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
