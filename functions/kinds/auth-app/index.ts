/** Auth apps: a site is handed the app's id, its sign-in URLs and its server key; no credential of its own. */
import { type ServiceKind, serviceText } from '../service-kind';
import { nameTakenOn } from '../service-rows';

/** The auth app kind. */
export const authApp: ServiceKind<'auth_app'> = {
  name: 'auth_app',
  word: 'auth app',
  plural: 'auth apps',
  commandWords: ['auth', 'auth_app', 'auth-app'],
  levels: [
    { level: 'client', meaning: 'signs users in' },
    { level: 'admin', meaning: 'signs users in and manages them' },
  ],
  levelChangeConsequence: null,
  table: 'auth_apps',
  nameColumn: 'app_id',
  enabledColumn: 'enabled',
  softDeleted: false,
  hasEngine: false,
  families: [
    {
      name: 'auth_app',
      plain: [
        'SERVICE_AUTH_APP_ID',
        'SERVICE_AUTH_URL',
        'SERVICE_AUTH_PUBLIC_URL',
        'SERVICE_AUTH_SERVER_KEY',
        'PLATFORM_AUTH_APP_ID',
      ],
      suffixed: (n) => ['APP_ID', 'URL', 'PUBLIC_URL', 'SERVER_KEY'].map((f) => `SERVICE_AUTH_${f}_${n}`),
      // PLATFORM_AUTH_APP_ID is for the build and has no suffixed form.
      mirrors: [
        'SERVICE_AUTH_APP_ID',
        'SERVICE_AUTH_URL',
        'SERVICE_AUTH_PUBLIC_URL',
        'SERVICE_AUTH_SERVER_KEY',
      ],
    },
  ],
  family: () => 'auth_app',
  derivedFrom: ['server_key_ciphertext'],
  async values({ config }, row) {
    const appId = serviceText(row, 'app_id') ?? '';
    const url = `${config.PUBLIC_AUTH_URL.replace(/\/+$/, '')}/v1/${appId}`;
    const serverKey = serviceText(row, 'server_key_ciphertext');
    return {
      SERVICE_AUTH_APP_ID: appId,
      SERVICE_AUTH_URL: url,
      // Apps reach the auth service at the same public address as browsers do.
      SERVICE_AUTH_PUBLIC_URL: url,
      SERVICE_AUTH_SERVER_KEY: serverKey ? await config.keyring.decrypt(serverKey) : '',
      PLATFORM_AUTH_APP_ID: appId,
    };
  },
  capabilities(conns) {
    // Only an admin connection lets the site's key manage the app.
    const auth = [...new Set(conns.filter((c) => c.level === 'admin').map((c) => c.resourceId))];
    return auth.length > 0 ? { auth: auth.sort() } : {};
  },
  nameTaken: nameTakenOn(
    'auth_apps_app_id_unique',
    (name) => `an auth app with app_id ${name} already exists`,
  ),
  credentials: null,
};
