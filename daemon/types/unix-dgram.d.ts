declare module 'unix-dgram' {
  import type { EventEmitter } from 'node:events';
  export interface UnixDgramSocket extends EventEmitter {
    /** Sends to `path`; the callback gets the error, if any, before send returns. */
    send(buf: Buffer, offset: number, length: number, path: string, callback?: (error?: Error) => void): void;
    close(): void;
  }
  export function createSocket(type: 'unix_dgram'): UnixDgramSocket;
}
