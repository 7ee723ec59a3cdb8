/**
 * The signed webhook target: the live patch of contract §6, POSTed to the site's own receiver and
 * signed with its own secret (packages/receiver verifies it). Checking it makes no call to the
 * receiver (it answers POSTs only, and one sent before the target is stored could not be told
 * apart from a patch); it checks the host (webhook-host.ts), and every send checks it again.
 */
import { z } from 'zod';
import { shownUrl } from '../../domain/shown-url';
import { SignedHttpReceiver } from '../receiver';
import type { DeliveryTarget } from './target-adapter';
import { checkWebhookHost } from './webhook-host';

const WebhookInput = z
  .object({
    type: z.literal('webhook'),
    url: z
      .string()
      .url()
      .max(2048)
      .refine(
        (value) => ['https:', 'http:'].includes(new URL(value).protocol),
        'https, or plain http to a loopback host only',
      ),
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
  async check(urls, { config }) {
    await checkWebhookHost(config.url, urls.webhookHosts);
  },
  async deliver(urls, { config, secret }, patch) {
    // Resolved again at every send: the name may point elsewhere since it was set (DNS rebinding).
    await checkWebhookHost(config.url, urls.webhookHosts).catch((err: Error) => {
      throw new Error(`not sent: ${err.message}`);
    });
    await new SignedHttpReceiver(
      { url: config.url, secret },
      `the webhook at ${new URL(config.url).host}`,
    ).send(patch.body);
    // The receiver answers 2xx only once the app applied it (packages/receiver): live.
    return { live: true };
  },
};
