/**
 * Every status the Worker answers is one its OpenAPI document declares for that operation. The
 * test walks every documented route (the round-trip walk's requests, which succeed) and, before
 * each succeeds, sends it as callers and with inputs that must be refused: no credentials, a
 * read-only member, an unknown id or app in the path, a body that is not JSON or not declared JSON. A status the
 * document leaves out of that operation's responses fails, naming the route and what provoked it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, api, createAccount } from '../helpers/api';
import {
  type Call,
  type RoundTripWorld,
  startRoundTripWorld,
  stopRoundTripWorld,
} from '../helpers/round-trip-fixture';
import { routeRequest } from '../helpers/route-calls';
import { authRequests } from './round-trip-auth-requests';
import { writeRequests } from './round-trip-writes';

type Operation = { responses?: Record<string, unknown> };
type Doc = { paths: Record<string, Record<string, Operation>> };

const started: Partial<RoundTripWorld> = {};
let w: RoundTripWorld;
let doc: Doc;
let reader: ApiClient;
let made: Record<string, () => Promise<Call>>;

beforeAll(async () => {
  w = await startRoundTripWorld(started);
  made = { ...writeRequests(w), ...authRequests(w) };
  doc = (await api(w.worker.baseUrl).get<Doc>('/api/v1/openapi.json')).body;
  const member = await createAccount(undefined, w.worker.baseUrl);
  const added = await w.s.as.put(`/api/v1/projects/${w.f.project}/members/${member.id}`, { role: 'read' });
  expect(added.status, added.text).toBe(200);
  reader = api(w.worker.baseUrl, member.token);
}, 180_000);

afterAll(() => stopRoundTripWorld(started));

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** `path` with its last id swapped for one nothing has; undefined when it names no id. */
function unknownIdIn(path: string): string | undefined {
  const ids = [...path.matchAll(UUID)];
  const last = ids.at(-1);
  if (last?.index === undefined) return undefined;
  return path.slice(0, last.index) + randomUUID() + path.slice(last.index + last[0].length);
}

/** The auth service path with its app slug swapped for one no app has. */
const unknownAppIn = (path: string): string => path.replace(/^\/v1\/[^/?]+/, '/v1/no-such-app-for-statuses');

/** The refusals a route's call is sent as first, each with what provoked it. */
function refusalsOf(call: Call): Array<[string, Call]> {
  const out: Array<[string, Call]> = [];
  const management = call.path.startsWith('/api/');
  const hasBody = !['GET', 'DELETE', 'HEAD'].includes(call.method);
  if (management) {
    out.push(['no credentials', { ...call, as: api(w.worker.baseUrl) }]);
    out.push(['a malformed token', { ...call, as: api(w.worker.baseUrl, 'tth_at_not-a-token') }]);
    if (call.path.startsWith(`/api/v1/projects/${w.f.project}`))
      out.push(['a read member', { ...call, as: reader }]);
    const unknown = unknownIdIn(call.path);
    if (unknown) out.push(['an unknown id', { ...call, path: unknown }]);
  } else {
    out.push(['an unknown app', { ...call, path: unknownAppIn(call.path) }]);
  }
  if (hasBody)
    out.push([
      'a body declared as plain text',
      { ...call, body: undefined, rawBody: '{}', headers: { ...call.headers, 'content-type': 'text/plain' } },
    ]);
  if (hasBody)
    out.push([
      'a body that is not JSON',
      {
        ...call,
        body: undefined,
        rawBody: '{"not json',
        headers: { ...call.headers, 'content-type': 'application/json' },
      },
    ]);
  return out;
}

/** Sends `call` as its caller (the project's owner unless it says) and returns the status. */
async function statusOf(call: Call): Promise<number> {
  const client = call.as ?? (call.path.startsWith('/v1/') ? api(w.worker.baseUrl) : w.s.as);
  const res = await client.request(call.method, call.path, call.body, {
    headers: call.headers,
    rawBody: call.rawBody,
  });
  return res.status;
}

describe('statuses the Worker answers, against the OpenAPI document', () => {
  it('every route answers only statuses its operation documents', async () => {
    const undocumented: string[] = [];
    const skipped: string[] = [];
    let checked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const route = `${method.toUpperCase()} ${path}`;
        if (path === '/api/v1/openapi.json') continue;
        const request = routeRequest(w, made, method.toUpperCase(), path);
        // A route with no successful request yet is round-trip-budgets.test.ts's to fail.
        if (typeof request === 'string') {
          skipped.push(request);
          continue;
        }
        const call = await request();
        const declared = Object.keys(op.responses ?? {});
        for (const [why, variant] of [...refusalsOf(call), ['its successful request', call] as const]) {
          const status = await statusOf(variant);
          checked++;
          if (!declared.includes(String(status)) && !declared.includes('default'))
            undocumented.push(`${route} answered ${status} to ${why} (documents ${declared.join(', ')})`);
        }
      }
    }
    if (skipped.length > 0) console.log(`routes with no request to walk:\n${skipped.join('\n')}`);
    expect(checked).toBeGreaterThan(300);
    expect(undocumented).toEqual([]);
  }, 300_000);
});
