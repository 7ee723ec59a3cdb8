/**
 * Receivers of signed deliveries (contract §6): the runtime that patches running apps, and the
 * network that applies database policies. Both take a signed JSON POST and acknowledge with 2xx.
 * Locally and in tests they are real HTTP servers (test/helpers/receiver.ts), so there is no
 * stand-in here.
 */
import type { ReceiverTarget } from '../config';
import { signatureHeaders } from '../lib/signature';

/** How long a POST to a receiver may take. */
const SEND_TIMEOUT_MS = 10_000;

/** Somewhere a delivery is sent; `send` throws unless the receiver acknowledged it. */
export interface Receiver {
  send(body: string): Promise<void>;
}

/** The production Receiver: a JSON POST signed with the receiver's secret; throws unless 2xx. */
export class SignedHttpReceiver implements Receiver {
  /** `label` names the receiver in a failure (recorded as a delivery's `last_error`). */
  constructor(
    private readonly target: ReceiverTarget,
    private readonly label = 'the receiver',
  ) {}

  async send(body: string): Promise<void> {
    const res = await this.post(body);
    // Never read: a failure says what failed (its status), never what the receiver answered.
    await res.body?.cancel().catch(() => undefined);
    if (res.status < 200 || res.status > 299) throw new Error(`${this.label} answered ${res.status}`);
  }

  private async post(body: string): Promise<Response> {
    const headers = {
      'content-type': 'application/json',
      ...(await signatureHeaders(this.target.secret, body)),
    };
    try {
      return await fetch(this.target.url, {
        method: 'POST',
        headers,
        body,
        // A redirect is not an acknowledgement: following it would turn the POST into a GET
        // elsewhere and take that answer's 2xx for the patch's.
        redirect: 'manual',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (err) {
      const name = (err as Error).name;
      throw new Error(
        name === 'TimeoutError' || name === 'AbortError'
          ? `${this.label} did not answer within ${SEND_TIMEOUT_MS / 1000} s`
          : `${this.label} could not be reached`,
      );
    }
  }
}
