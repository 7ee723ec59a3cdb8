/**
 * The console under /console: server-rendered pages (hono/jsx) that call the management API in
 * process with the signed-in dashboard session, so every rule stays the API's own.
 */
import { Hono } from 'hono';
import type { Fetcher } from './console-api';
import type { ConsoleEnv } from './console-env';
import { consoleError, consoleNotFound } from './error-pages';
import { accessPages } from './pages/access';
import { accountPages } from './pages/account';
import { tokenPages } from './pages/account-tokens';
import { activityPages } from './pages/activity';
import { authAppPages } from './pages/auth-app';
import { authAppManagePages } from './pages/auth-app-manage';
import { authUserPages } from './pages/auth-users';
import { cliLoginPages } from './pages/cli-login';
import { devicePages } from './pages/device';
import { invitationPages } from './pages/invitation';
import { memberPages } from './pages/members';
import { pluginServicePages } from './pages/plugin-services';
import { principalPages } from './pages/principals';
import { projectPages } from './pages/project';
import { projectsPages } from './pages/projects';
import { servicePages } from './pages/service';
import { siteConnectionsPages } from './pages/site-connections';
import { siteDeliveryPages } from './pages/site-delivery';
import { siteDeploysPages } from './pages/site-deploys';
import { siteVariablesPages } from './pages/site-variables';
import { securityHeaders } from './security';
import { requireSession, sessionRoutes } from './session';

/** Builds the console; `fetcher` is the Worker's own app, which the pages call for every read and change. */
export function consoleApp(fetcher: Fetcher): Hono<ConsoleEnv> {
  const ui = new Hono<ConsoleEnv>();
  ui.use('*', securityHeaders);
  ui.route('/', sessionRoutes(fetcher));
  ui.use('*', requireSession(fetcher));
  for (const pages of [
    projectsPages,
    projectPages,
    pluginServicePages,
    activityPages,
    memberPages,
    invitationPages,
    cliLoginPages,
    devicePages,
    tokenPages,
    accountPages,
    siteConnectionsPages,
    siteVariablesPages,
    siteDeploysPages,
    siteDeliveryPages,
    servicePages,
    accessPages,
    principalPages,
    authAppPages,
    authAppManagePages,
    authUserPages,
  ]) {
    ui.route('/', pages);
  }
  ui.notFound(consoleNotFound);
  ui.onError(consoleError);
  return ui;
}
