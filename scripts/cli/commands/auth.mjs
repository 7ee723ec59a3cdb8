// @ts-check
/** `tether auth create|ls|origins|provider|set|keys`: auth apps, their settings and signing keys. */
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson, printTable, say, withProgress } from '../lib/output.mjs';
import { projectOf, resolveService } from '../lib/resolve.mjs';
import { fieldsInWords } from '../lib/words.mjs';
import { registerAuthKeys } from './auth-keys.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {{ enabled: boolean } & Record<string, unknown>} ProviderSettings
 * @typedef {{ id: string, app_id: string, name: string | null, enabled: boolean,
 *   allowed_origins: string[], user_limit: number | null, auth_url?: string, issuer?: string,
 *   providers: Record<string, ProviderSettings | undefined> }} AuthAppFull
 */

/** @param {string} value */
const collect = (value, /** @type {string[]} */ previous = []) => [...previous, value];

/**
 * The auth app `appId` of the project in use, with its path.
 * @param {Command} cmd
 * @param {string} appId
 */
async function authApp(cmd, appId) {
  const ctx = await contextOf(cmd);
  const api = ctx.api();
  const project = projectOf(ctx.settings);
  const found = await resolveService(api, ctx.settings, 'auth_app', appId);
  const { auth_apps } = await dataOf(
    api.GET('/api/v1/projects/{id}/auth-apps', { params: { path: { id: project } } }),
  );
  const app = /** @type {AuthAppFull} */ (auth_apps.find((a) => a.id === found.id));
  const path = { id: project, authAppId: found.id };
  /** @param {import('../lib/api.mjs').BodyOf<'patchProjectsByIdAuthAppsByAuthAppId'>} body */
  const patch = (body) =>
    dataOf(api.PATCH('/api/v1/projects/{id}/auth-apps/{authAppId}', { params: { path }, body }));
  return { api, project, app, patch };
}

/**
 * @param {AuthAppFull} app
 * @returns {string}
 */
function providersOf(app) {
  return (
    Object.entries(app.providers ?? {})
      .map(([name, p]) => `${name}${p?.enabled ? '' : ' (off)'}`)
      .join(', ') || 'none'
  );
}

/** @param {AuthAppFull} app */
function describeApp(app) {
  say(`Auth app ${app.app_id}${app.name ? ` ("${app.name}")` : ''}: ${app.enabled ? 'enabled' : 'disabled'}`);
  say(`  allowed origins: ${app.allowed_origins.join(', ') || 'none'}`);
  say(`  providers:       ${providersOf(app)}`);
  say(`  user limit:      ${app.user_limit ?? 'none'}`);
  if (app.auth_url) say(`  auth URL:        ${app.auth_url}`);
  if (app.issuer) say(`  issuer:          ${app.issuer}   (the app's routes: ${app.issuer}/auth/google, …)`);
}

/** @param {Command} program */
export function registerAuth(program) {
  const auth = program
    .command('auth')
    .description('auth apps: create, list, their settings (origins, providers) and signing keys')
    .addHelpText(
      'after',
      examples([
        'tether auth create shop-login',
        'tether auth origins shop-login --add myapp://auth',
        'tether auth provider shop-login google --client-id <id> --client-secret - --enable',
        'tether auth ls',
        'tether auth keys shop-login',
      ]),
    );
  registerAuthKeys(auth);

  auth
    .command('create')
    .description('create an auth app (connected at once when the project has exactly one site)')
    .argument('<app_id>', 'the app id, which is also its path under {auth_url}/v1/')
    .option('--name <name>', 'a display name')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ appId, /** @type {{ name?: string, json?: boolean }} */ opts, cmd) => {
        const ctx = await contextOf(cmd);
        const project = projectOf(ctx.settings);
        const created = await withProgress(`Creating auth app ${appId}`, () =>
          dataOf(
            ctx.api().POST('/api/v1/projects/{id}/auth-apps', {
              params: { path: { id: project } },
              body: { app_id: appId, ...(opts.name ? { name: opts.name } : {}) },
            }),
          ),
        );
        if (opts.json) return printJson(created);
        say(`Created auth app ${created.app_id} in project ${project}.`);
        say(
          `Next: tether auth origins ${created.app_id} --add <your app's redirect origin>, then tether auth provider.`,
        );
      },
    );

  auth
    .command('ls')
    .alias('list')
    .description("list the project's auth apps with their origins and providers")
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const project = projectOf(ctx.settings);
      const listing = await dataOf(
        ctx.api().GET('/api/v1/projects/{id}/auth-apps', { params: { path: { id: project } } }),
      );
      if (opts.json) return printJson(listing);
      if (listing.auth_apps.length === 0)
        return say(`Project ${project} has no auth apps: tether auth create <app_id>`);
      printTable(
        ['APP ID', 'ENABLED', 'ALLOWED ORIGINS', 'PROVIDERS'],
        listing.auth_apps.map((a) => [
          a.app_id,
          a.enabled ? 'yes' : 'no',
          a.allowed_origins.join('\n'),
          providersOf(a),
        ]),
      );
    });

  auth
    .command('origins')
    .description("show or change an auth app's allowed origins (where sign-ins may return)")
    .argument('<app_id>', 'the auth app')
    .option('--add <origin>', 'allow this origin (repeatable)', collect)
    .option('--remove <origin>', 'stop allowing this origin (repeatable)', collect)
    .option('--json', 'print the app as JSON')
    .addHelpText(
      'after',
      examples([
        'tether auth origins shop-login',
        'tether auth origins shop-login --add myapp://auth --add https://shop.example.com',
      ]),
    )
    .action(
      async (
        /** @type {string} */ appId,
        /** @type {{ add?: string[], remove?: string[], json?: boolean }} */ opts,
        cmd,
      ) => {
        const { app, patch } = await authApp(cmd, appId);
        let after = app;
        if (opts.add || opts.remove) {
          const removing = new Set(opts.remove ?? []);
          const origins = [...app.allowed_origins.filter((o) => !removing.has(o))];
          for (const o of opts.add ?? []) if (!origins.includes(o)) origins.push(o);
          after = await withProgress(`Saving origins of ${app.app_id}`, () =>
            patch({ allowed_origins: origins }),
          );
        }
        if (opts.json) return printJson(after);
        say(`Allowed origins of ${after.app_id}: ${after.allowed_origins.join(', ') || 'none'}`);
      },
    );

  auth
    .command('provider')
    .description("set up, change or remove an auth app's sign-in provider (google, github, apple)")
    .argument('<app_id>', 'the auth app')
    .argument('<provider>', 'google, github or apple (the service says which it has)')
    .option('--client-id <id>', "google, github: the provider's (web) OAuth client id")
    .option('--client-secret <secret>', 'google, github: its client secret (`-` reads it from stdin)')
    .option('--ios-client-id <id>', 'google: the iOS client id (for native ID tokens)')
    .option('--android-client-id <id>', 'google: the Android client id (for native ID tokens)')
    .option('--services-id <id>', 'apple: the services ID (the browser flow and Sign in with Apple JS)')
    .option('--team-id <id>', 'apple: your 10-character team ID')
    .option('--key-id <id>', 'apple: the 10-character ID of your Sign in with Apple key')
    .option('--private-key <file>', 'apple: that key, the .p8 file (`-` reads it from stdin)')
    .option(
      '--bundle-id <id>',
      'apple: an iOS bundle ID whose native ID tokens sign in (repeatable)',
      collect,
    )
    .option('--enable', 'turn the provider on')
    .option('--disable', 'turn the provider off (keeps its settings)')
    .option('--remove', 'remove the provider and its settings')
    .option('--json', 'print the app as JSON')
    .addHelpText(
      'after',
      examples([
        'pass show google-secret | tether auth provider shop-login google --client-id 123.apps.googleusercontent.com --client-secret - --enable',
        'tether auth provider shop-login github --disable',
        'tether auth provider shop-login apple --services-id com.example.shop.web --team-id ABCDE12345 --key-id KEY1234567 --private-key AuthKey_KEY1234567.p8 --bundle-id com.example.shop --enable',
      ]),
    )
    .action(
      async (
        /** @type {string} */ appId,
        /** @type {string} */ provider,
        /** @type {{ clientId?: string, clientSecret?: string, iosClientId?: string, androidClientId?: string,
         *   servicesId?: string, teamId?: string, keyId?: string, privateKey?: string, bundleId?: string[],
         *   enable?: boolean, disable?: boolean, remove?: boolean, json?: boolean }} */ opts,
        cmd,
      ) => {
        if (opts.enable && opts.disable) throw new UsageError('choose --enable or --disable, not both');
        if (opts.clientSecret === '-' && opts.privateKey === '-')
          throw new UsageError('only one of --client-secret and --private-key can read stdin');
        /** @type {Record<string, unknown> | null} */
        let change = null;
        if (!opts.remove) {
          const secret = opts.clientSecret === '-' ? (await text(process.stdin)).trim() : opts.clientSecret;
          const native = {
            ...(opts.iosClientId ? { ios: opts.iosClientId } : {}),
            ...(opts.androidClientId ? { android: opts.androidClientId } : {}),
          };
          const privateKey =
            opts.privateKey === undefined
              ? undefined
              : opts.privateKey === '-'
                ? await text(process.stdin)
                : await readFile(opts.privateKey, 'utf8');
          // Only what was given is sent: the service keeps every field left out.
          change = {
            ...(opts.enable ? { enabled: true } : opts.disable ? { enabled: false } : {}),
            ...(opts.clientId ? { client_id: opts.clientId } : {}),
            ...(secret ? { client_secret: secret } : {}),
            ...(Object.keys(native).length > 0 ? { native_client_ids: native } : {}),
            ...(opts.servicesId ? { services_id: opts.servicesId } : {}),
            ...(opts.teamId ? { team_id: opts.teamId } : {}),
            ...(opts.keyId ? { key_id: opts.keyId } : {}),
            ...(privateKey ? { private_key: privateKey } : {}),
            ...(opts.bundleId ? { bundle_ids: opts.bundleId } : {}),
          };
          if (Object.keys(change).length === 0) {
            throw new UsageError(
              'nothing to change: give the settings to set (see --help), --enable, --disable or --remove',
            );
          }
        }
        const { app, patch } = await authApp(cmd, appId);
        const after = await withProgress(`Saving ${provider} of ${app.app_id}`, () =>
          patch({ providers: { [provider]: change } }),
        );
        if (opts.json) return printJson(after);
        // The provider is as typed (the service says which it has), so the answer is read by name.
        const now = /** @type {AuthAppFull['providers'] | undefined} */ (after.providers)?.[provider];
        if (!now) return say(`Removed ${provider} from ${after.app_id}.`);
        const { enabled, ...settings } = now;
        say(`${provider} sign-in of ${after.app_id}: ${enabled ? 'enabled' : 'off'}`);
        for (const [words, value] of fieldsInWords(settings)) say(`  ${words}: ${value}`);
        if (after.issuer) say(`Callback URL to register: ${after.issuer}/auth/${provider}/callback`);
      },
    );

  auth
    .command('set')
    .description("show or change an auth app's name, enabled state and user limit")
    .argument('<app_id>', 'the auth app')
    .option('--name <name>', 'a display name')
    .option('--enable', 'enable the app')
    .option('--disable', 'disable the app (sign-ins and outstanding codes are refused)')
    .option('--user-limit <n>', 'most end users (`none` for no limit)')
    .option('--json', 'print the app as JSON')
    .action(
      async (
        /** @type {string} */ appId,
        /** @type {{ name?: string, enable?: boolean, disable?: boolean, userLimit?: string, json?: boolean }} */ opts,
        cmd,
      ) => {
        if (opts.enable && opts.disable) throw new UsageError('choose --enable or --disable, not both');
        /** @type {import('../lib/api.mjs').BodyOf<'patchProjectsByIdAuthAppsByAuthAppId'>} */
        const change = {};
        if (opts.name !== undefined) change.name = opts.name;
        if (opts.enable || opts.disable) change.enabled = Boolean(opts.enable);
        if (opts.userLimit !== undefined) {
          const n = Number(opts.userLimit);
          if (opts.userLimit !== 'none' && !(Number.isInteger(n) && n > 0)) {
            throw new UsageError(`--user-limit takes a positive whole number or none, not ${opts.userLimit}`);
          }
          change.user_limit = opts.userLimit === 'none' ? null : n;
        }
        const { app, patch } = await authApp(cmd, appId);
        const after =
          Object.keys(change).length === 0
            ? app
            : await withProgress(`Saving ${app.app_id}`, () => patch(change));
        if (opts.json) return printJson(after);
        describeApp(after);
      },
    );
}
