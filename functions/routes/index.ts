/** Every management route group, mounted under /api/v1. */
import type { AppEnv } from '../app-env';
import { routeGroup } from '../lib/openapi';
import { accessRoutes } from './access';
import { accountSessionsRoutes } from './account-sessions';
import { accountsRoutes } from './accounts';
import { activityRoutes } from './activity';
import { apiKeysRoutes } from './api-keys';
import { authAppLifecycleRoutes } from './auth-app-lifecycle';
import { authAppsRoutes } from './auth-apps';
import { bucketsRoutes } from './buckets';
import { cliRoutes } from './cli';
import { rotationRoutes } from './connection-rotation';
import { connectionsRoutes } from './connections';
import { databasesRoutes } from './databases';
import { deploysRoutes } from './deploys';
import { invitationsRoutes } from './invitations';
import { principalsRoutes } from './principals';
import { projectHealthRoutes } from './project-health';
import { projectsRoutes } from './projects';
import { serviceCredentialsRoutes } from './service-credentials';
import { serviceSitesRoutes } from './service-sites';
import { envRoutes } from './site-variables';
import { sitesRoutes } from './sites';
import { targetsRoutes } from './targets';
import { tunnelRoutes } from './tunnel';

export const managementRoutes = routeGroup<AppEnv>();
for (const group of [
  accountsRoutes,
  accountSessionsRoutes,
  cliRoutes,
  projectsRoutes,
  projectHealthRoutes,
  invitationsRoutes,
  apiKeysRoutes,
  sitesRoutes,
  databasesRoutes,
  bucketsRoutes,
  authAppsRoutes,
  authAppLifecycleRoutes,
  envRoutes,
  connectionsRoutes,
  rotationRoutes,
  serviceSitesRoutes,
  deploysRoutes,
  tunnelRoutes,
  accessRoutes,
  serviceCredentialsRoutes,
  principalsRoutes,
  activityRoutes,
  targetsRoutes,
]) {
  managementRoutes.route('/', group);
}
