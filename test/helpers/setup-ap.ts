/** Waits for a daemon's setup AP to be up on a known MAC (its name then stored), through the owner API. */
import type { SocialHarness } from './social.js';

export async function setupAp(h: SocialHarness, token: string): Promise<{ ssid: string; passphrase: string }> {
  for (let tries = 0; tries < 200; tries += 1) {
    const state = await h.api(token, 'GET', '/api/nestbox/v1/state');
    if (state.body.softap?.active && state.body.wifi?.mac) {
      const { body } = await h.api(token, 'GET', '/api/nestbox/v1/setup_ap');
      if (body.ssid !== state.body.softap.ssid)
        throw new Error(`setup AP ${body.ssid} is not ${state.body.softap.ssid}`);
      return { ssid: body.ssid, passphrase: body.passphrase };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the setup AP did not start');
}
