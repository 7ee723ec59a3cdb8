// @ts-check
/**
 * Where a site's live patches go, said plainly after a change: its delivery target, the
 * platform-wide receiver, or nowhere yet (then they wait as pending deliveries, and the way to
 * the variables is `tether env pull` or `tether run`).
 */
import { dataOf } from './api.mjs';

/** A target type as people say it. */
const LABELS = /** @type {Record<string, string>} */ ({
  webhook: 'its webhook',
  cloudflare: 'its Cloudflare Worker (secrets)',
  vercel: 'its Vercel project (environment variables)',
  fly: 'its Fly app (secrets)',
  default: "the platform's runtime receiver",
});

/**
 * One sentence saying where the change to site `slug` went.
 * @param {import('./api.mjs').Api} api
 * @param {{ id: string, siteId: string }} site the site's project and id, as the API's path takes them
 * @param {string} slug
 */
export async function whereItWent(api, site, slug) {
  const { target } = await dataOf(
    api.GET('/api/v1/projects/{id}/sites/{siteId}/deliveries', {
      params: { path: site, query: { limit: 1 } },
    }),
  );
  if (!target.configured) {
    return `Site ${slug} has no delivery target and this Tether has no platform-wide receiver, so no running app was told: the change waits as a pending delivery. Set a delivery target for it (the console's Delivery tab, or PUT …/target), or use tether env pull / tether run -- <command>.`;
  }
  return `The change goes to ${LABELS[target.type] ?? target.type} as a live patch; tether deliveries shows whether it arrived.`;
}
