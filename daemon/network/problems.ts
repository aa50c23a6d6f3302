/**
 * The network layer's health as one component (/healthz `components.network`): each part (station,
 * setup AP, mDNS) reports its state in words; any fault makes the component `degraded` with the
 * faults' reasons, otherwise it is `ok` and says what each part is doing.
 */
import type { ComponentHealth } from '../lifecycle/health.js';

export type PartState = 'ok' | 'idle' | 'waiting' | 'fault';
export interface PartReport {
  state: PartState;
  detail: string;
}
export type PartReporter = (report: PartReport) => void;

export class NetworkHealth {
  private readonly parts = new Map<string, PartReport>();

  constructor(
    private readonly publish: (health: ComponentHealth) => void,
    private readonly address: () => string | null,
  ) {}

  reporter(part: string): PartReporter {
    return (report) => {
      this.parts.set(part, report);
      this.refresh();
    };
  }

  refresh(): void {
    const entries = [...this.parts];
    const faults = entries.filter(([, report]) => report.state === 'fault');
    const shown = faults.length ? faults : entries.filter(([, report]) => report.state !== 'idle');
    this.publish({
      status: faults.length ? 'degraded' : 'ok',
      address: this.address(),
      detail:
        shown.map(([part, report]) => `${part}: ${report.detail}`).join('; ') ||
        'waiting for the station to join a network',
    });
  }
}
