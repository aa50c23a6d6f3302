/** The owner's dashboard page at /dashboard: static; everything it shows comes from the owner API. */
import Router from '@koa/router';
import { loadPage, sendPage } from './static-pages.js';

const PAGES = {
  '/dashboard': 'dashboard/index.html',
  '/dashboard/': 'dashboard/index.html',
  '/dashboard/dashboard.js': 'dashboard/dashboard.js',
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
  return router;
}
