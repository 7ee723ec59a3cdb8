/**
 * The signed webhook target: the live patch of contract §6, POSTed to the site's own receiver and
 * signed with its own secret (packages/receiver verifies it). Checking it makes no call: a
 * receiver answers POSTs only, and one sent before the target is stored could not be told apart
 * from a patch.
 */
import { z } from 'zod';
import { shownUrl } from '../../domain/shown-url';
import { SignedHttpReceiver } from '../receiver';
import type { DeliveryTarget } from './types';

/** A loopback host, where plain http is allowed (local development). */
const LOOPBACK = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

const WebhookInput = z
  .object({
    type: z.literal('webhook'),
    url: z
      .string()
      .url()
      .max(2048)
      .refine((value) => {
        const url = new URL(value);
        return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname));
      }, 'https, or plain http to a loopback host only'),
    secret: z.string().min(16, 'at least 16 characters').max(512),
  })
  .strict();

type WebhookConfig = { url: string };

/** The signed webhook target. */
export const webhookTarget: DeliveryTarget<z.infer<typeof WebhookInput>, WebhookConfig> = {
  type: 'webhook',
  input: WebhookInput,
  split: ({ url, secret }) => ({ config: { url }, secret }),
  // The query may hold a token of the receiver's: never shown back nor recorded (contract §9).
  describe: ({ url }) => ({ url: shownUrl(url), secret_set: true }),
  async check() {},
  async deliver(_urls, { config, secret }, patch) {
    await new SignedHttpReceiver({ url: config.url, secret }).send(patch.body);
  },
};
