/**
 * An auth app's lifecycle beyond its settings: deletion (its connections removed with their
 * live patches, its users and their sessions gone with the row, its app_id free again), a new
 * server key (delivered to every connected site with reason `rotate`; the old one no longer
 * finds the app) and a new signing key (the old one published until its tokens expired). Each is
 * one guarded batch with its Activity event.
 */
import { sql } from 'drizzle-orm';
import type { StoredSigningKey } from '../../../db/schema';
import { sha256Hex } from '../../lib/crypto';
import { newSecret } from '../../lib/ids';
import type { RequestContext } from '../../request-context';
import { activityQuery } from '../activity';
import { afterCommit } from '../connections/apply';
import { retryOnConcurrentChange } from '../connections/retry';
import { type ServiceHolders, writeServiceRekey, writeServiceRemoval } from '../connections/service-removal';
import { guardRows, runGuarded } from '../store/guarded-write';
import type { AuthAppRow } from './apps';
import { blockCodes } from './code-regions';
import { CODE_TTL_MS } from './one-time-codes';
import { currentKeyOf, rotatedKeys } from './signing-keys';

const NOT_FOUND = { code: 'NOT_FOUND', message: 'auth app not found' } as const;

const target = (app: AuthAppRow) => ({ type: 'auth_app', id: app.id, name: app.appId });

/** A new server key: the value, its ciphertext and the hash a request presenting it is found by. */
export async function newServerKey(ctx: Pick<RequestContext, 'config'>) {
  const key = newSecret('serverKey');
  return { key, ciphertext: await ctx.config.keyring.encrypt(key), hash: await sha256Hex(key) };
}

/** The route's read of the app and the sites holding it (with the caller's lookup the first time). */
export type ReadAppHolders = () => Promise<{ app: AuthAppRow; holders: ServiceHolders }>;

/** Deletes the app `read` names with its connections, read again and retried when a concurrent write moved them first. */
export const deleteAuthApp = (ctx: RequestContext, read: ReadAppHolders): Promise<void> =>
  retryOnConcurrentChange(ctx.db, async () => deleteOnce(ctx, await read()));

/** A new server key for the app `read` names, read again and retried when a concurrent write moved its holders first. */
export const rotateServerKey = (ctx: RequestContext, read: ReadAppHolders): Promise<void> =>
  retryOnConcurrentChange(ctx.db, async () => rotateServerKeyOnce(ctx, await read()));

/** Deletes `app` with its connections (read with the caller as `holders`). */
async function deleteOnce(
  ctx: RequestContext,
  { app, holders }: { app: AuthAppRow; holders: ServiceHolders },
): Promise<void> {
  const db = ctx.http;
  const { written } = await writeServiceRemoval(
    db,
    ctx.config,
    { projectId: app.projectId, kind: 'auth_app', id: app.id, name: app.appId },
    holders,
    {
      // Its users, identities and refresh tokens go with the row (foreign keys, on delete cascade).
      after: [
        db.execute(guardRows(sql`delete from auth_apps where id = ${app.id}::uuid returning id`, NOT_FOUND)),
      ],
    },
    ctx.activity,
  );
  await afterCommit(ctx, written);
  // Codes are redeemed without Postgres: the app's outstanding ones are blocked where they live,
  // for as long as one can live, so an app made later with the same app_id is not affected.
  await blockCodes(ctx, { slug: app.appId, userId: null, reason: 'app_disabled', ttlMs: CODE_TTL_MS }).catch(
    (err: unknown) =>
      ctx.log.error(
        'blocking a deleted app’s outstanding codes failed; they expire within two minutes:',
        err,
      ),
  );
}

/** Gives `app` a new server key, delivered to the sites holding it (`holders`) with reason `rotate`. */
async function rotateServerKeyOnce(
  ctx: RequestContext,
  { app, holders }: { app: AuthAppRow; holders: ServiceHolders },
): Promise<void> {
  const db = ctx.http;
  const next = await newServerKey(ctx);
  const { written } = await writeServiceRekey(
    db,
    ctx.config,
    { projectId: app.projectId, kind: 'auth_app', id: app.id },
    holders,
    {
      before: [
        db.execute(
          guardRows(
            sql`update auth_apps set server_key_ciphertext = ${next.ciphertext}, server_key_hash = ${next.hash}
                 where id = ${app.id}::uuid returning id`,
            NOT_FOUND,
          ),
        ),
        activityQuery(db, ctx.activity, {
          action: 'auth_app.rotate_server_key',
          target: target(app),
          projectId: app.projectId,
        }),
      ],
    },
  );
  await afterCommit(ctx, written);
}

/**
 * Promotes `app`'s published next key to current and publishes a new next key; the key it
 * replaces stays published until its tokens expired.
 * Written over the keys it read (a concurrent rotation makes this one 409, retry safe).
 */
export async function rotateSigningKey(
  ctx: RequestContext,
  { app }: { app: AuthAppRow },
): Promise<StoredSigningKey> {
  const db = ctx.http;
  const keys = await rotatedKeys(ctx.config, app.signingKeys);
  const before = JSON.stringify(app.signingKeys);
  await runGuarded(db, [
    db.execute(
      guardRows(
        sql`update auth_apps set signing_keys = ${JSON.stringify(keys)}::jsonb
             where id = ${app.id}::uuid and signing_keys = ${before}::jsonb returning id`,
        { code: 'CONFLICT', message: 'the signing key changed while this request ran; retry' },
      ),
    ),
    activityQuery(db, ctx.activity, {
      action: 'auth_app.rotate_signing_key',
      target: target(app),
      projectId: app.projectId,
    }),
  ]);
  return currentKeyOf(keys) as StoredSigningKey;
}
