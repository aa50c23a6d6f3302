import { redact } from './redact.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export type LogFields = Record<string, unknown>;
export type LogSink = (line: string) => void;

/** One JSON line per event on stdout (journald keeps them); fields pass through redaction. */
export class Logger {
  constructor(
    private readonly level: LogLevel = 'info',
    private readonly bindings: LogFields = {},
    private readonly sink: LogSink = (line) => process.stdout.write(line + '\n'),
  ) {}

  child(bindings: LogFields): Logger {
    return new Logger(this.level, { ...this.bindings, ...bindings }, this.sink);
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] >= RANK[this.level];
  }

  debug(msg: string, fields?: LogFields): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.write('error', msg, fields);
  }

  private write(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    const record = { time: new Date().toISOString(), level, ...this.bindings, msg, ...fields };
    let line: string;
    try {
      line = JSON.stringify(redact(record));
    } catch {
      line = JSON.stringify({ time: record.time, level, msg, note: 'fields could not be serialised' });
    }
    this.sink(line);
  }
}

/** A logger that drops everything: for tools and tests that do not want daemon logs. */
export const silentLogger = new Logger('silent');
