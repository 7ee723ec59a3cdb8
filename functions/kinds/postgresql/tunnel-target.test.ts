/** Small pure pieces of the database tunnel: when the Worker speaks TLS to the cluster, and local URLs. */
import { describe, expect, it } from 'vitest';
import { clusterWantsTls } from './postgresql-system';

interface TunnelModule {
  localDatabaseUrl(url: string, port: number): string | undefined;
}

describe('clusterWantsTls', () => {
  it.each([
    ['postgresql://u:p@ep-x.eu-central-1.aws.neon.tech/neondb?sslmode=require', true],
    ['postgres://u:p@db.example.com/x?sslmode=verify-full', true],
    ['postgres://u:p@db.example.com/x?ssl=true', true],
    ['postgres://postgres:pw@127.0.0.1:5432/postgres', false],
    ['postgres://u:p@db.example.com/x?sslmode=prefer', false],
    ['not a url', false],
  ])('%s -> %s', (url, expected) => {
    expect(clusterWantsTls(url)).toBe(expected);
  });
});

describe('localDatabaseUrl (tether connect --local)', () => {
  const load = async () => (await import('../../../scripts/cli/lib/tunnel.mjs' as string)) as TunnelModule;

  it('points the URL at the local port and keeps credential, database and parameters', async () => {
    const { localDatabaseUrl } = await load();
    const url = 'postgres://c_ab12cd34:p%40ss%2Fw%3Ard@db.example.com:5432/main_x1?application_name=app';
    const local = new URL(localDatabaseUrl(url, 15433) as string);
    expect(local.host).toBe('127.0.0.1:15433');
    expect([local.username, local.password, local.pathname]).toEqual([
      'c_ab12cd34',
      'p%40ss%2Fw%3Ard',
      '/main_x1',
    ]);
    expect(local.searchParams.get('application_name')).toBe('app');
    expect(local.searchParams.get('sslmode')).toBe('disable');
  });

  it('turns TLS off for the loopback hop even when the remote URL demands it', async () => {
    const { localDatabaseUrl } = await load();
    const local = new URL(localDatabaseUrl('postgresql://u:p@h/d?sslmode=require&ssl=true', 1) as string);
    expect(local.searchParams.getAll('sslmode')).toEqual(['disable']);
    expect(local.searchParams.has('ssl')).toBe(false);
  });

  it('leaves anything that is not a PostgreSQL URL alone', async () => {
    const { localDatabaseUrl } = await load();
    expect(localDatabaseUrl('mongodb://u:p@h/d', 1)).toBeUndefined();
    expect(localDatabaseUrl('not a url', 1)).toBeUndefined();
  });
});
