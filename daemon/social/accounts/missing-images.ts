/** The default avatar and header images (web/social/), served like Mastodon's `missing.png`. */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { Routes } from '../http/routes.js';
import { MISSING_AVATAR, MISSING_HEADER } from './serialize.js';
import { installPath } from '../../install-paths.js';

const WEB_DIR = installPath('web', 'social');

export function staticRoutes(routes: Routes): void {
  const avatar = readFileSync(join(WEB_DIR, 'missing.png'));
  for (const path of [MISSING_AVATAR, MISSING_HEADER]) {
    routes.get(path, 'open', (ctx) => {
      ctx.type = 'image/png';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = avatar;
    });
  }
}
