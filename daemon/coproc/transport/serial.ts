/** `serial:/dev/ttyX?baud=N`: a UART straight to the coprocessor, through the serialport library. */
import type { SerialPort as SerialPortType } from 'serialport';
import { lazy } from '../../lib/on-first-use.js';
import { ReopeningTransport, type PortCallbacks, type PortHandle, type TransportOptions } from './types.js';

// Loaded on first use: the serialport bindings cost memory a box on `sim` or `esps:` need not pay.
const serialPort = lazy('serial ports (serialport)', () => import('serialport'));

export class SerialTransport extends ReopeningTransport {
  readonly description: string;
  protected readonly devicePath: string;

  constructor(
    private readonly path: string,
    private readonly baudRate: number,
    options: TransportOptions,
  ) {
    super(options);
    this.devicePath = path;
    this.description = `serial:${path}`;
  }

  protected async openPort(callbacks: PortCallbacks): Promise<PortHandle> {
    const { SerialPort } = await serialPort();
    const port: SerialPortType = new SerialPort({ path: this.path, baudRate: this.baudRate, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((error) => (error ? reject(error) : resolve())));
    let closing = false;
    port.on('data', (chunk: Buffer) => callbacks.data(chunk));
    port.on('close', (error?: Error & { disconnected?: boolean }) => {
      if (!closing) callbacks.lost(error?.message ?? 'port closed');
    });
    port.on('error', (error: Error) => {
      if (!closing) callbacks.lost(error.message);
    });
    return {
      write: (bytes) => {
        port.write(bytes);
      },
      close: () =>
        new Promise<void>((resolve) => {
          closing = true;
          if (!port.isOpen) {
            resolve();
            return;
          }
          port.close(() => resolve());
        }),
    };
  }
}
