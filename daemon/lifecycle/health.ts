/**
 * Each subsystem reports its own health here; /healthz and systemd STATUS= read it.
 * "degraded" means a configured component is not working; "off" means not configured.
 */
import { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';

export type ComponentStatus = 'starting' | 'ok' | 'degraded' | 'off';

export interface ComponentHealth {
  status: ComponentStatus;
  /** Plain words for a person; never a secret. */
  detail?: string;
  /** Figures shown beside the status (e.g. storage's free_bytes); never a secret. */
  [fact: string]: string | number | null | undefined;
  /** The network component's station address (CIDR), or null without a lease. */
  address?: string | null;
}

export interface HealthReport {
  status: 'ok' | 'degraded';
  components: Record<string, ComponentHealth>;
}

export class Health extends EventEmitter<{ change: [HealthReport] }> {
  private readonly components = new Map<string, ComponentHealth>();

  set(component: string, health: ComponentHealth): void {
    const current = this.components.get(component);
    if (current && isDeepStrictEqual(current, health)) return;
    this.components.set(component, { ...health });
    this.emit('change', this.report());
  }

  get(component: string): ComponentHealth | undefined {
    return this.components.get(component);
  }

  report(): HealthReport {
    const components = Object.fromEntries([...this.components].map(([name, health]) => [name, { ...health }]));
    const degraded = [...this.components.values()].some((health) => health.status === 'degraded');
    return { status: degraded ? 'degraded' : 'ok', components };
  }

  /** "db ok, coproc degraded (no answer), mqtt off" */
  summary(): string {
    return [...this.components]
      .map(
        ([name, health]) =>
          `${name} ${health.status}${health.status === 'degraded' && health.detail ? ` (${health.detail})` : ''}`,
      )
      .join(', ');
  }
}
