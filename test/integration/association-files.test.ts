/**
 * Verified-link origins: an https origin added to an auth app that names its mobile apps
 * (`app_links`) must serve `/.well-known/apple-app-site-association` listing an iOS app ID and
 * `/.well-known/assetlinks.json` listing an Android package, or the PATCH is 400 saying which
 * file lacks what, and nothing changes; when `app_links` changes, the registered https origins
 * are checked again for the apps it now names. The files come from a local server through
 * ASSOCIATION_FILES_URL (`<url>/<host>/.well-known/…`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAuthApp, type TestAuthApp } from '../helpers/oauth';
import { type ExtraWorker, startExtraWorker } from '../helpers/worker';

const IOS = 'ABCDE12345.com.example.links';
const ANDROID = 'com.example.links';
/** The files each host serves, by path `/<host>/.well-known/<file>`. */
const files = new Map<string, unknown>();
const fetched: string[] = [];
let server: Server;
let worker: ExtraWorker;

beforeAll(async () => {
  server = createServer((req, res) => {
    fetched.push(req.url ?? '');
    const body = files.get(req.url ?? '');
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  worker = await startExtraWorker({
    ASSOCIATION_FILES_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => server.close(resolve));
});

const aasa = (...appIDs: string[]) => ({
  applinks: { details: [{ appIDs, components: [{ '/': '/auth/*' }] }] },
});
const assetlinks = (...packages: string[]) =>
  packages.map((package_name) => ({
    relation: ['delegate_permission/common.handle_all_urls'],
    target: { namespace: 'android_app', package_name, sha256_cert_fingerprints: ['AB:CD'] },
  }));

function serve(host: string, ios: unknown, android: unknown): void {
  if (ios !== undefined) files.set(`/${host}/.well-known/apple-app-site-association`, ios);
  if (android !== undefined) files.set(`/${host}/.well-known/assetlinks.json`, android);
}

const patch = (app: TestAuthApp, body: Record<string, unknown>) =>
  app.admin.patch(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`, body);

async function linkedApp(): Promise<TestAuthApp> {
  const app = await createTestAuthApp(worker.baseUrl, { origins: ['myapp://auth'] });
  const res = await patch(app, { app_links: { ios_app_ids: [IOS], android_package_names: [ANDROID] } });
  expect(res.status, res.text).toBe(200);
  expect(res.body.app_links).toEqual({ ios_app_ids: [IOS], android_package_names: [ANDROID] });
  return app;
}

describe('verified-link origins', () => {
  it('registers an https origin whose association files list the app', async () => {
    const app = await linkedApp();
    serve('links.example.com', aasa('ZZZZZ99999.other.app', IOS), assetlinks(ANDROID));
    const res = await patch(app, { allowed_origins: ['myapp://auth', 'https://links.example.com'] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.allowed_origins).toEqual(['myapp://auth', 'https://links.example.com']);
    expect(fetched).toEqual(
      expect.arrayContaining([
        '/links.example.com/.well-known/apple-app-site-association',
        '/links.example.com/.well-known/assetlinks.json',
      ]),
    );
  });

  it.each([
    [
      'no apple-app-site-association',
      'nofile.example.com',
      undefined,
      assetlinks(ANDROID),
      'allowed_origins[1]: https://nofile.example.com/.well-known/apple-app-site-association answered 404; it must be served with 200',
    ],
    [
      'an apple-app-site-association of another app',
      'otherios.example.com',
      aasa('ZZZZZ99999.other.app'),
      assetlinks(ANDROID),
      `allowed_origins[1]: https://otherios.example.com/.well-known/apple-app-site-association does not list ${IOS} in applinks.details[].appIDs`,
    ],
    [
      'an assetlinks.json of another package',
      'otherandroid.example.com',
      aasa(IOS),
      assetlinks('com.example.other'),
      `allowed_origins[1]: https://otherandroid.example.com/.well-known/assetlinks.json does not list ${ANDROID} as a delegate_permission/common.handle_all_urls statement for android_app`,
    ],
  ])(
    'refuses an origin with %s (400 saying what is missing, nothing changed)',
    async (_, host, ios, android, message) => {
      const app = await linkedApp();
      serve(host, ios, android);
      const res = await patch(app, { allowed_origins: ['myapp://auth', `https://${host}`], name: 'Renamed' });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({
        error: { code: 'VALIDATION_FAILED', message, field: 'allowed_origins[1]' },
      });
      const now = await app.admin.get(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`);
      expect(now.body).toMatchObject({ allowed_origins: ['myapp://auth'], name: null });
    },
  );

  it('checks against the app IDs of the same PATCH, and keeps the other platform when one is named', async () => {
    const app = await createTestAuthApp(worker.baseUrl, { origins: ['myapp://auth'] });
    serve('together.example.com', aasa(IOS), undefined);
    const together = await patch(app, {
      app_links: { ios_app_ids: [IOS] },
      allowed_origins: ['https://together.example.com'],
    });
    expect(together.status, together.text).toBe(200);
    // The origin already registered is checked again for the new platform, so it serves its file.
    serve('together.example.com', undefined, assetlinks(ANDROID));
    const android = await patch(app, { app_links: { android_package_names: [ANDROID] } });
    expect(android.status, android.text).toBe(200);
    expect(android.body.app_links).toEqual({ ios_app_ids: [IOS], android_package_names: [ANDROID] });
  });

  it('checks the registered https origins again when app_links changes: 400 naming the origin and the file, nothing changed', async () => {
    const app = await linkedApp();
    serve('kept.example.com', aasa(IOS), assetlinks(ANDROID));
    const added = await patch(app, { allowed_origins: ['myapp://auth', 'https://kept.example.com'] });
    expect(added.status, added.text).toBe(200);

    // Another Android app whose package the registered origin's assetlinks.json does not list.
    const OTHER = 'com.example.other';
    const refused = await patch(app, { app_links: { android_package_names: [OTHER] }, name: 'Renamed' });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toEqual({
      error: {
        code: 'VALIDATION_FAILED',
        message: `allowed_origins[1]: https://kept.example.com/.well-known/assetlinks.json does not list ${OTHER} as a delegate_permission/common.handle_all_urls statement for android_app`,
        field: 'allowed_origins[1]',
      },
    });
    const now = await app.admin.get(`/api/v1/projects/${app.project.id}/auth-apps/${app.id}`);
    expect(now.body).toMatchObject({
      name: null,
      app_links: { ios_app_ids: [IOS], android_package_names: [ANDROID] },
      allowed_origins: ['myapp://auth', 'https://kept.example.com'],
    });

    // Once the domain lists it, the change goes through; a PATCH leaving app_links as it is fetches nothing.
    serve('kept.example.com', undefined, assetlinks(ANDROID, OTHER));
    const accepted = await patch(app, { app_links: { android_package_names: [OTHER] } });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.app_links).toEqual({ ios_app_ids: [IOS], android_package_names: [OTHER] });
    const before = fetched.length;
    const same = await patch(app, { app_links: { android_package_names: [OTHER] }, user_limit: 5 });
    expect(same.status, same.text).toBe(200);
    expect(fetched.slice(before)).toEqual([]);
  });

  it('takes an https origin of an app that names no mobile app as a web origin, fetching nothing', async () => {
    const app = await createTestAuthApp(worker.baseUrl, { origins: ['myapp://auth'] });
    const before = fetched.length;
    const res = await patch(app, { allowed_origins: ['https://web-only.example.com'] });
    expect(res.status, res.text).toBe(200);
    expect(fetched.slice(before).filter((u) => u.includes('web-only'))).toEqual([]);
  });
});
