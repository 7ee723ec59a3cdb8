// @ts-check
/**
 * Following a connection's graceful rotation (docs/contract.md §14) from the CLI: its states,
 * `delivering → draining → done`, printed as they come, until the old secret is retired.
 */
import { dataOf } from './api.mjs';
import { KINDS } from './kinds.mjs';
import { formatTime } from './table.mjs';

/**
 * A deadline as every line shows one: relative, with the exact UTC time beside it (a deadline is
 * read again later, when the relative part no longer holds), as `--wide` shows times.
 * @param {string} iso
 */
const deadline = (iso) => formatTime(iso, { wide: true, now: Date.now() });

/** How often the rotation is read while waiting: the API's own read, one round trip. */
const POLL_MS = 2000;

/**
 * @typedef {{ state: 'none'|'delivering'|'draining'|'done', immediate: boolean,
 *   retires_by: string | null, old_sessions: number | null }} Rotation
 */

/**
 * The connection's rotation as the API shows it.
 * @param {import('./api.mjs').Api} api
 * @param {{ id: string, siteId: string, kind: 'database'|'bucket'|'auth_app', resourceId: string }} path
 * @returns {Promise<Rotation>}
 */
export async function rotationOf(api, path) {
  return /** @type {Rotation} */ (
    await dataOf(
      api.GET('/api/v1/projects/{id}/sites/{siteId}/connections/{kind}/{resourceId}/rotation', {
        params: { path },
      }),
    )
  );
}

/**
 * A rotation's state in words: the old sessions while it drains, and the deadline until done.
 * @param {Rotation} r
 */
export function rotationWords(r) {
  if (r.state === 'done' || r.state === 'none') return r.state;
  const sessions =
    r.state === 'draining' && r.old_sessions !== null ? `, ${r.old_sessions} old session(s)` : '';
  return `${r.state}${sessions}${r.retires_by ? `, old secret retires ${deadline(r.retires_by)}` : ''}`;
}

/**
 * Waits until the rotation is done, calling `onState` with each new state (the first included).
 * @param {import('./api.mjs').Api} api
 * @param {{ id: string, siteId: string, kind: 'database'|'bucket'|'auth_app', resourceId: string }} path
 * @param {(r: Rotation) => void} onState
 */
export async function waitForRotation(api, path, onState) {
  let last = '';
  for (;;) {
    const r = await rotationOf(api, path);
    const words = rotationWords(r);
    if (words !== last) onState(r);
    last = words;
    if (r.state === 'done' || r.state === 'none') return r;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * The rotations in progress of a site's own database and bucket credentials (each connection's
 * rotation read at once): what `env pull` warns about.
 * @param {import('./api.mjs').Api} api
 * @param {{ id: string, siteId: string }} site
 * @returns {Promise<Array<{ kind: string, name: string, rotation: Rotation }>>}
 */
export async function rotationsInProgress(api, site) {
  const listed = await dataOf(
    api.GET('/api/v1/projects/{id}/sites/{siteId}/connections', { params: { path: site } }),
  );
  // A kind the tool has no entry for (a plugin's) holds no credential of its own to rotate.
  const rotating = listed.connections.filter((c) => KINDS[c.kind]?.rotates);
  const read = await Promise.all(
    rotating.map(async (c) => ({
      kind: c.kind,
      name: c.resource_name,
      rotation: await rotationOf(api, { ...site, kind: c.kind, resourceId: c.resource_id }),
    })),
  );
  return read.filter((r) => r.rotation.state === 'delivering' || r.rotation.state === 'draining');
}

/**
 * The warning `env pull` prints for a rotation in progress: the file holds the new secret, and
 * the one pulled before the rotate (what apps started from an older file still run with) is
 * refused by the deadline.
 * @param {{ kind: string, name: string, rotation: Rotation }} r
 */
export function pulledSecretWarning({ kind, name, rotation }) {
  const by = rotation.retires_by ? ` ${deadline(rotation.retires_by)}` : ' once the new one is live';
  return `${kind} ${name} is rotating (${rotationWords({ ...rotation, retires_by: null })}): this file holds the new secret; the secret pulled before the rotate stops working${by}, so restart apps still running with an older file before then`;
}
