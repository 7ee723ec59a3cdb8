/**
 * Every list command of `tether` against the local stack, in an 80-column terminal (COLUMNS=80,
 * stdout a pipe): each line fits 80 columns, `--json` is the API's answer and parses, `--wide`
 * shows what the table cut, and fields read as words (scripts/cli/lib/table.mjs, words.mjs).
 * The project holds long values: variable names, a principal's sources, a failed delivery with
 * a long error, an invitation, a token.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cliHomeForFile, runCli, signInAs } from '../helpers/cli';
import { metadata, type SeededProject, type Service, seedProject } from '../helpers/connections';

const h = cliHomeForFile();
let s: SeededProject;
let db: Service;
let bucket: Service;
let app: Service;
const LONG_ERROR = `webhook answered 502 Bad Gateway: ${'upstream connect error or disconnect/reset before headers; '.repeat(3)}`;
const LONG_NAME = 'A_RATHER_LONG_VARIABLE_NAME_FOR_A_FEATURE_FLAG_OF_THE_CHECKOUT';

beforeAll(async () => {
  s = await seedProject(inject('baseUrl'), 1, { databases: 1, buckets: 1, authApps: 1 });
  [db, bucket, app] = [s.databases[0], s.buckets[0], s.authApps[0]] as [Service, Service, Service];
  const p = `/api/v1/projects/${s.project.id}`;
  const site = `${p}/sites/${s.site.id}`;
  const vars = { [LONG_NAME]: 'x'.repeat(150), GREETING: 'hello' };
  expect((await s.as.put(`${site}/env`, { vars })).status).toBe(200);
  const principal = await s.as.post(`${p}/buckets/${bucket.id}/principals`, {
    name: 'nightly-export-to-the-warehouse',
    level: 'read',
    allowed_sources: ['203.0.113.0/24', '2001:db8:abcd:12::/64'],
  });
  expect(principal.status, principal.text).toBe(201);
  const invited = await s.as.post(`${p}/invitations`, {
    email: 'someone-with-a-rather-long-address-for-the-members-table@example.test',
    role: 'write',
  });
  expect(invited.status, invited.text).toBe(201);
  const token = await s.as.post('/api/v1/account/tokens', { name: 'laptop of the person on call this week' });
  expect(token.status, token.text).toBe(201);
  const rotated = await s.as.post(`${site}/connections/database/${db.id}/rotate`);
  expect(rotated.status, rotated.text).toBe(204);
  // The newest delivery failed a try: its error is the widest value of the listing.
  await metadata(
    `update deliveries set last_error = $2, attempts = 3
      where id = (select id from deliveries where target_id = $1 order by created_at desc limit 1)`,
    [s.site.id, LONG_ERROR],
  );
  signInAs(h, s);
});

/** Runs `args` in an 80-column terminal; fails on a non-zero exit. */
async function at80(args: string[]): Promise<string> {
  const res = await runCli(h, args, { env: { COLUMNS: '80' } });
  expect(res.code, `tether ${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res.stdout;
}

/** The list commands and what their table must show. */
const LISTS: [string[], () => string[]][] = [
  [['projects'], () => [s.project.slug]],
  [['sites', 'ls'], () => [s.site.slug]],
  [['connections'], () => [db.name, bucket.name, 'DATABASE_URL']],
  [['connections', '--site', 'SITE'], () => [db.name, 'STORAGE_BUCKET']],
  [['db', 'list'], () => [db.name]],
  [['db', 'sites', 'DB'], () => [s.site.slug]],
  [['bucket', 'list'], () => [bucket.name]],
  [['auth', 'list'], () => [app.name]],
  [['principals', 'list', 'bucket', 'BUCKET'], () => ['nightly-export']],
  [['env', 'ls'], () => ['GREETING']],
  [['env', 'ls', '--effective'], () => ['DATABASE_URL', 'GREETING']],
  [['members'], () => ['someone-with-a-rather']],
  [['tokens'], () => ['laptop']],
  [['activity'], () => ['env.set']],
  [['deliveries'], () => ['rotate', 'failed']],
];

const filled = (args: string[]) =>
  args.map((a) => ({ SITE: s.site.slug, DB: db.name, BUCKET: bucket.name })[a] ?? a);

describe('list commands in an 80-column terminal', () => {
  for (const [args, shows] of LISTS) {
    it(`tether ${args.join(' ')} fits every line in 80 columns, and --json parses`, async () => {
      const out = await at80(filled(args));
      for (const word of shows()) expect(out).toContain(word);
      const wide = out.split('\n').filter((line) => [...line].length > 80);
      expect(wide).toEqual([]);
      // No rule between rows (the tables of before drew one under every row).
      expect(out).not.toMatch(/[─┼├]/);
      const json = await at80([...filled(args), '--json']);
      expect(() => JSON.parse(json)).not.toThrow();
    });
  }
});

describe('what the table cuts', () => {
  it('tether deliveries cuts the error with an ellipsis; --wide and --json show it whole', async () => {
    const cut = await at80(['deliveries']);
    expect(cut).not.toContain(LONG_ERROR.trim());
    expect(cut).toContain('…');
    const wide = await at80(['deliveries', '--wide']);
    expect(wide).toContain(LONG_ERROR.trim());
    const json = JSON.parse(await at80(['deliveries', '--json'])) as {
      deliveries: { last_error: string | null }[];
    };
    expect(json.deliveries.map((d) => d.last_error)).toContain(LONG_ERROR);
  });

  it('times read relative by default, with the exact UTC time beside them in --wide', async () => {
    const table = await at80(['sites']);
    expect(table).toMatch(/just now|min ago/);
    expect(table).not.toMatch(/\d{4}-\d\d-\d\dT/);
    const wide = await at80(['sites', '--wide']);
    expect(wide).toMatch(/(just now|min ago) \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/);
  });

  it('a provider reads in words, never as API keys', async () => {
    const out = await at80([
      'auth',
      'provider',
      app.name,
      'github',
      '--client-id',
      'gh-1',
      '--client-secret',
      's3',
      '--enable',
    ]);
    expect(out).toContain('client ID: gh-1');
    expect(out).toContain('client secret: set');
    expect(out).not.toMatch(/client_secret_set|client_id/);
  });
});

describe('tether tokens', () => {
  it('shows the start of each id, which revoke takes; --wide shows it whole', async () => {
    const made = await s.as.post<{ id: string }>('/api/v1/account/tokens', { name: 'to be revoked' });
    expect(made.status, made.text).toBe(201);
    const table = await at80(['tokens']);
    expect(table).toContain(made.body.id.slice(0, 8));
    expect(table).not.toContain(made.body.id);
    expect(await at80(['tokens', '--wide'])).toContain(made.body.id);
    const revoked = await at80(['tokens', 'revoke', made.body.id.slice(0, 8), '--yes']);
    expect(revoked).toContain(`Revoked token ${made.body.id}.`);
    const listed = JSON.parse(await at80(['tokens', '--json'])) as { tokens: { id: string }[] };
    expect(listed.tokens.map((t) => t.id)).not.toContain(made.body.id);
  });
});
