// @ts-check
/** `tether auth keys <app_id>`: the app's signing keys, and when the next one can become current. */
import { dataOf } from '../lib/api.mjs';
import { contextOf } from '../lib/context.mjs';
import { printJson, say, when } from '../lib/output.mjs';
import { projectOf, resolveService } from '../lib/resolve.mjs';

/**
 * Adds `keys` to the `auth` command.
 * @param {import('commander').Command} auth
 */
export function registerAuthKeys(auth) {
  auth
    .command('keys')
    .alias('signing-keys')
    .description(
      "show an auth app's signing keys: the current one, the published next one and when it can become current",
    )
    .argument('<app_id>', 'the auth app')
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {string} */ appId, /** @type {{ json?: boolean }} */ opts, cmd) => {
      const ctx = await contextOf(cmd);
      const api = ctx.api();
      const project = projectOf(ctx.settings);
      const app = await resolveService(api, ctx.settings, 'auth_app', appId);
      const keys = await dataOf(
        api.GET('/api/v1/projects/{id}/auth-apps/{authAppId}/signing-keys', {
          params: { path: { id: project, authAppId: app.id } },
        }),
      );
      if (opts.json) return printJson(keys);
      say(`Signing keys of ${appId}`);
      say(
        keys.current
          ? `  current: ${keys.current.kid}, signing since ${when(keys.current.created_at)}`
          : '  current: none yet (made when the app first signs a token)',
      );
      if (keys.next) {
        say(`  next:    ${keys.next.kid}, in the JWKS since ${when(keys.next.published_at)}`);
        say(
          `           becomes current at the next rotation (the console's Manage › Rotate signing key, or POST …/signing-key/rotate); every JWKS cache holds it from ${when(keys.next.ready_at)}`,
        );
      } else {
        say('  next:    none yet (published when the app’s JWKS is first read)');
      }
      for (const key of keys.retired)
        say(
          `  retired: ${key.kid}, replaced ${when(key.retired_at)}, published until ${when(key.published_until)}`,
        );
    });
}
