/**
 * Self-checks of the local stack and test harness: the shared Worker answers, the Neon
 * WebSocket proxy is not an open relay, the receiver and extra Workers behave as documented.
 */
import pg from 'pg';
import { describe, expect, inject, test } from 'vitest';
import WebSocket from 'ws';
import { api, createAccount, createProject } from '../helpers/api';
import { startReceiver } from '../helpers/receiver';
import { startExtraWorker, triggerScheduled } from '../helpers/worker';

/** Opens a WebSocket and resolves with how it ended: 'open' or the close code. */
function tryProxy(url: string): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('open', () => {
      // A refused tunnel is closed by the server right after the handshake.
      const timer = setTimeout(() => {
        ws.close();
        resolve('open');
      }, 200);
      ws.on('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    ws.on('error', () => undefined);
  });
}

describe('local stack', () => {
  test('GET /healthz answers {ok:true}', async () => {
    const res = await api().get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  test('the metadata database is migrated', async () => {
    const client = new pg.Client({ connectionString: inject('metadataUrl') });
    await client.connect();
    try {
      const res = await client.query<{ n: number }>(
        "select count(*)::int as n from information_schema.tables where table_schema = 'public' and table_name = 'accounts'",
      );
      expect(res.rows[0]?.n).toBe(1);
    } finally {
      await client.end();
    }
  });

  test('the WebSocket proxy only tunnels to the local PostgreSQL port', async () => {
    const proxy = inject('wsProxyUrl');
    const port = inject('pgPort');
    for (const address of [
      'example.com:443',
      `127.0.0.1:${port + 1}`,
      `10.0.0.1:${port}`,
      '',
      `127.0.0.1:${port}0`,
    ]) {
      expect(await tryProxy(`ws://${proxy}?address=${address}`), address).toBe(1008);
    }
    expect(await tryProxy(`ws://${proxy.replace(/\/v1$/, '/v2')}?address=127.0.0.1:${port}`)).toBe(1008);
    expect(await tryProxy(`ws://${proxy}?address=localhost:${port}`)).toBe('open');
  });

  test('helpers create accounts and projects', async () => {
    const account = await createAccount();
    const me = await api().as(account.token).get<{ id: string }>('/api/v1/account');
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(account.id);
    const project = await createProject(account.token);
    expect(project.slug).toBeTruthy();
  });
});

describe('receiver', () => {
  test('records requests, fails on demand and hands each one out once', async () => {
    const receiver = await startReceiver();
    try {
      receiver.failNext(1);
      const second = receiver.next((req) => (req.body as { n?: number } | undefined)?.n === 2);
      const post = (n: number) =>
        fetch(`${receiver.url}/hook`, { method: 'POST', body: JSON.stringify({ n }) });
      expect((await post(1)).status).toBe(500);
      expect((await post(2)).status).toBe(200);
      expect((await second).index).toBe(1);
      const first = await receiver.next();
      expect(first).toMatchObject({ status: 500, body: { n: 1 }, path: '/hook' });
      expect(receiver.verifySignature(first, 'secret')).toBe(false);
      await expect(receiver.next(undefined, 50)).rejects.toThrow(/no matching request/);
    } finally {
      await receiver.close();
    }
  });
});

describe('extra Worker', () => {
  test('shares the database with the shared Worker and runs its cron on request', async () => {
    const worker = await startExtraWorker({ CLIENT_IP_HEADER: 'X-Test-Client' });
    try {
      expect(worker.baseUrl).not.toBe(inject('baseUrl'));
      expect((await api(worker.baseUrl).get('/healthz')).status).toBe(200);
      const account = await createAccount(undefined, worker.baseUrl);
      expect((await api().as(account.token).get('/api/v1/account')).status).toBe(200);
      await triggerScheduled(worker.baseUrl);
      expect((await worker.runScheduled()).outcome).toBe('ok');
    } finally {
      await worker.stop();
    }
  });
});
