/**
 * The owner's dashboard page at /dashboard: static; everything it shows comes from the owner API.
 * Beside it the box's icon at /favicon.ico, which every browser asks for on every page.
 */
import Router from '@koa/router';
import { loadPage, sendPage } from './static-pages.js';

const PAGES = {
  '/dashboard': 'dashboard/index.html',
  '/dashboard/': 'dashboard/index.html',
  '/dashboard/dashboard.js': 'dashboard/dashboard.js',
  '/dashboard/state-words.js': 'dashboard/state-words.js',
  '/dashboard/owner-admin.js': 'dashboard/owner-admin.js',
  '/dashboard/reachability.js': 'dashboard/reachability.js',
  '/dashboard/dashboard.css': 'dashboard/dashboard.css',
  // The form helper the invite page shares.
  '/forms/field-errors.js': 'forms/field-errors.js',
} as const;

export function dashboardRouter(): Router {
  const router = new Router();
  for (const [path, file] of Object.entries(PAGES)) {
    const page = loadPage(file);
    router.get(path, (ctx) => sendPage(ctx, page));
  }
  const icon = loadPage('favicon.ico');
  router.get('/favicon.ico', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.type = icon.type;
    ctx.body = icon.body;
  });
  return router;
}
