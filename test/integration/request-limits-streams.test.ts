/**
 * A client that keeps sending past the body limit reads the 413 instead of a reset connection:
 * the Worker reads and throws away what the client still sends (up to 16 MiB or 5 s) before it
 * answers, so a client that writes its whole body before it reads the answer, as most do, gets
 * the 413 and a connection that ends cleanly. Closing with bytes unread reset the connection,
 * which lost the 413 whenever the reset arrived first. Over plain HTTP/1.1, chunked and declared.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { seededForFile } from '../helpers/for-file';

const s = seededForFile(1);

const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const TOTAL = 8 * 1024 * 1024;

type Outcome = { status?: number; body?: string; error?: string; written: number; finished: boolean };

/**
 * POSTs {@link TOTAL} bytes in 64 KiB chunks, each written before the next, and resolves with
 * the answer's status and body once it ended, or with the error that ended the exchange.
 */
function send(path: string, declared: boolean): Promise<Outcome> {
  const url = new URL(path, s.as.baseUrl);
  return new Promise((resolve) => {
    let written = 0;
    const headers: Record<string, string | number> = {
      authorization: `Bearer ${s.token}`,
      'content-type': 'application/json',
    };
    if (declared) headers['content-length'] = TOTAL;
    const req = http.request(url, { method: 'POST', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode, body, written, finished: req.writableFinished }));
      res.on('error', (err) => resolve({ error: err.message, written, finished: req.writableFinished }));
    });
    req.on('error', (err) =>
      resolve({ error: `${(err as NodeJS.ErrnoException).code}`, written, finished: req.writableFinished }),
    );
    const pump = () => {
      if (written >= TOTAL) return req.end();
      written += CHUNK.length;
      req.write(CHUNK, (err) => {
        if (!err) pump();
      });
    };
    pump();
  });
}

describe('a body sent on past the 256 KiB limit, 8 MiB in all', () => {
  for (const declared of [false, true]) {
    it(`${declared ? 'declared (Content-Length)' : 'streamed (chunked)'}: all of it sent, then 413 PAYLOAD_TOO_LARGE read, no reset`, async () => {
      for (let round = 0; round < 3; round++) {
        const res = await send('/api/v1/projects', declared);
        expect(res).toMatchObject({ status: 413, written: TOTAL, finished: true });
        expect(res.error).toBeUndefined();
        expect(JSON.parse(res.body ?? '{}').error?.code).toBe('PAYLOAD_TOO_LARGE');
      }
    });
  }
});
