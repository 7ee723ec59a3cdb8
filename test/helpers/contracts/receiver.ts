/**
 * The Receiver contract (contract §6): a delivery is POSTed byte for byte, signed
 * `X-Signature: t=<unix seconds>,sha256=<HMAC of "<t>.<body>">`, and only a 2xx acknowledges it.
 */
import { expect, it } from 'vitest';
import type { Receiver } from '../../../functions/adapters/receiver';
import type { Receiver as Endpoint } from '../receiver';

/** A Receiver, the endpoint it sends to (a recording HTTP server) and the secret they share. */
export interface ReceiverHarness {
  receiver: Receiver;
  endpoint: Endpoint;
  secret: string;
  /** The `n`th body of the kind this receiver takes; `n` appears in it (a live patch's seq). */
  body(n: number): string;
}

export function receiverCases(get: () => ReceiverHarness): void {
  it('a delivery arrives byte for byte as a JSON POST, signed with t= over its body', async () => {
    const h = get();
    const first = h.body(1);
    await h.receiver.send(first);
    const got = await h.endpoint.next((r) => r.rawBody === first);
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-signature']).toMatch(/^t=\d+,sha256=[0-9a-f]{64}$/);
    expect(h.endpoint.verifySignature(got, h.secret)).toBe(true);
    expect(got.body).toEqual(JSON.parse(first));
  });

  it("the signature covers the whole body (a live patch's seq included), under that secret, for five minutes", async () => {
    const h = get();
    const body = h.body(3);
    await h.receiver.send(body);
    const got = await h.endpoint.next((r) => r.rawBody === body);
    expect(h.endpoint.verifySignature(got, `${h.secret}x`)).toBe(false);
    expect(h.endpoint.verifySignature({ ...got, rawBody: body.replace('3', '4') }, h.secret)).toBe(false);
    expect(h.endpoint.verifySignature(got, h.secret, Date.now() + 6 * 60_000)).toBe(false);
  });

  it('a 500 is not an acknowledgement: send throws', async () => {
    const h = get();
    h.endpoint.failNext(1);
    await expect(h.receiver.send(h.body(5))).rejects.toThrow(/500/);
  });

  it('a redirect is not an acknowledgement: send throws and does not follow it', async () => {
    const h = get();
    h.endpoint.redirectNext(1);
    const before = h.endpoint.requests.length;
    await expect(h.receiver.send(h.body(6))).rejects.toThrow(/30\d/);
    expect(h.endpoint.requests.length).toBe(before + 1);
  });
}
