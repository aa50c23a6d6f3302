/**
 * Renders Home Assistant templates with Jinja2 itself (Debian's python3-jinja2, the engine
 * Home Assistant runs), in a sandboxed environment like Home Assistant's, with its `to_json`
 * filter, `value` and `value_json` set from an MQTT payload as its MQTT integration sets them.
 * Tests use it to see what each entity would show for a real state message.
 */
import { spawn } from 'node:child_process';
import { requirePackage } from './system-packages.js';

/** Debian's Python, which python3-jinja2 installs for (a python3 earlier on PATH may lack it). */
const DEBIAN_PYTHON = '/usr/bin/python3';

const RENDER = String.raw`
import json, sys
from jinja2.sandbox import ImmutableSandboxedEnvironment
env = ImmutableSandboxedEnvironment()
env.filters['to_json'] = lambda value: json.dumps(value)
env.filters['from_json'] = json.loads
request = json.load(sys.stdin)
out = {}
for key, source in request['templates'].items():
    payload = request['payloads'][key]
    variables = {'value': payload}
    try:
        variables['value_json'] = json.loads(payload)
    except ValueError:
        pass
    try:
        out[key] = {'ok': env.from_string(source).render(**variables)}
    except Exception as error:
        out[key] = {'error': type(error).__name__ + ': ' + str(error)}
json.dump(out, sys.stdout)
`;

export type Rendered = Record<string, { ok: string } | { error: string }>;

/** Renders each template against its payload; one python3 process for the lot. */
export function renderTemplates(
  templates: Record<string, string>,
  payloads: Record<string, string>,
): Promise<Rendered> {
  return new Promise((resolve, reject) => {
    requirePackage(['python3-jinja2']);
    const child = spawn(DEBIAN_PYTHON, ['-c', RENDER], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`python3 with jinja2 failed (${code}): ${err}`));
      resolve(JSON.parse(out) as Rendered);
    });
    child.stdin.end(JSON.stringify({ templates, payloads }));
  });
}

export interface EntityView {
  platform: string;
  /** What the entity shows: the rendered state (ON/OFF, a value, "None" for unknown), parsed JSON for update entities, the attributes as parsed JSON. */
  state: unknown;
  attributes?: unknown;
}

/**
 * What every state-reading entity of a device-discovery config shows for `stateJson` (the
 * `<base>/state` payload). Buttons and the event entity have no state there and are left out.
 */
export async function homeAssistantView(
  config: { state_topic: string; cmps: Record<string, Record<string, unknown>> },
  stateJson: string,
): Promise<Record<string, EntityView>> {
  const templates: Record<string, string> = {};
  const payloads: Record<string, string> = {};
  for (const [key, component] of Object.entries(config.cmps)) {
    const topic = (component.state_topic as string | undefined) ?? config.state_topic;
    if (typeof component.value_template === 'string' && topic === config.state_topic) {
      templates[key] = component.value_template;
      payloads[key] = stateJson;
    }
    if (
      typeof component.json_attributes_template === 'string' &&
      component.json_attributes_topic === config.state_topic
    ) {
      templates[`${key}#attributes`] = component.json_attributes_template;
      payloads[`${key}#attributes`] = stateJson;
    }
  }
  const rendered = await renderTemplates(templates, payloads);
  const view: Record<string, EntityView> = {};
  for (const [key, result] of Object.entries(rendered)) {
    if ('error' in result) throw new Error(`template of ${key} failed: ${result.error}`);
    const [name, part] = key.split('#');
    const platform = config.cmps[name].p as string;
    const entry = (view[name] ??= { platform, state: undefined });
    const text = result.ok.trim();
    if (part === 'attributes') entry.attributes = JSON.parse(text);
    else entry.state = platform === 'update' ? JSON.parse(text) : text;
  }
  return view;
}
