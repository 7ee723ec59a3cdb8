/** Every management route group, mounted under /api/v1. */
import type { AppEnv } from '../context';
import { routeGroup } from '../lib/openapi';
import { accountsRoutes } from './accounts';
import { apiKeysRoutes } from './api-keys';
import { authAppsRoutes } from './auth-apps';
import { bucketsRoutes } from './buckets';
import { databasesRoutes } from './databases';
import { envRoutes } from './env';
import { projectsRoutes } from './projects';
import { sitesRoutes } from './sites';

export const managementRoutes = routeGroup<AppEnv>();
for (const group of [
  accountsRoutes,
  projectsRoutes,
  apiKeysRoutes,
  sitesRoutes,
  databasesRoutes,
  bucketsRoutes,
  authAppsRoutes,
  envRoutes,
]) {
  managementRoutes.route('/', group);
}
