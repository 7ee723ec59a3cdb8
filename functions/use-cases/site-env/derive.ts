/**
 * The injected variables of a site, derived on every read from its connections, their
 * services and credentials; they are never stored.
 */

import { type SQL, sql } from 'drizzle-orm';
import { type HttpDb, type Queryable, rowsOf } from '../../../db/client';
import type { Adapters } from '../../adapters';
import type { Config } from '../../config';
import { connectionKey } from '../../domain/levels';
import { MANAGED_KEY_NAME, nameOwners, namesWithRoles, plainHolders } from '../../domain/variables';
import type { Login } from '../../kinds/database-engine';
import { familyOf, kindOf, serviceNameIn } from '../../kinds/registry';
import { type DerivationRow, serviceText } from '../../kinds/service-kind';
import { derivedServiceOf } from '../../kinds/service-sql';

export type { DerivationRow };

/** A site's variables: user-set, derived, and what the app is handed. */
export interface SiteEnv {
  siteId: string;
  projectId: string;
  user: Record<string, string>;
  derived: Record<string, string>;
  /** User values overlaid with derived ones: derived values win under the same name. */
  effective: Record<string, string>;
}

/** What a site's derivation reads: the site, its managed key, its connections with their services. */
export type SiteEnvInputs = {
  site: { id: string; project_id: string; vars_ciphertext: string | null } | null;
  managed_key: string | null;
  connections: DerivationRow[];
};

/** The statement reading {@link SiteEnvInputs} of the site whose id is `siteId` (SQL). */
const inputsOf = (siteId: SQL) => sql`
    select
      (select row_to_json(s) from (select id, project_id, vars_ciphertext from sites where id = ${siteId}) s) as site,
      (select key_ciphertext from api_keys where site_id = ${siteId} and revoked_at is null
         order by created_at desc limit 1) as managed_key,
      (select coalesce(json_agg(x), '[]'::json) from (
        select c.id, c.kind, c.resource_id, c.credential_mode, c.credential_name, c.credential_secret_ciphertext,
               c.holds_plain, c.created_at, c.level, ${derivedServiceOf('c')} as service
        from connections c
        where c.site_id = ${siteId}
      ) x) as connections`;

async function readInputs(db: Queryable, siteId: string): Promise<SiteEnvInputs | undefined> {
  const [row] = await rowsOf<SiteEnvInputs>(db, inputsOf(sql`${siteId}::uuid`));
  return row;
}

/**
 * The {@link SiteEnvInputs} of the site whose id `siteId` gives (SQL: a literal or a subquery), as
 * one statement not yet sent (a route reads it with its caller's lookup); null site when none.
 */
export function siteInputsQuery(db: HttpDb, siteId: SQL) {
  return db.execute<SiteEnvInputs>(inputsOf(siteId));
}

/**
 * The {@link SiteEnvInputs} of every site connected to service `resourceId`, one row each, as
 * one statement not yet sent (a write reads them with its other state in one round trip).
 */
export function connectedSiteInputsQuery(db: HttpDb, resourceId: string) {
  return db.execute<SiteEnvInputs>(sql`
    select i.* from (select distinct c.site_id from connections c where c.resource_id = ${resourceId}::uuid) h
    cross join lateral (${inputsOf(sql`h.site_id`)}) i`);
}

/** The login a connection uses: its own credential, or the service's shared one. */
const loginWith =
  (config: Config) =>
  async (r: DerivationRow, user: string | null, cipher: string | null): Promise<Login> => {
    if (r.credential_mode === 'own' && r.credential_name && r.credential_secret_ciphertext) {
      return {
        user: r.credential_name,
        secret: await config.keyring.decrypt(r.credential_secret_ciphertext),
      };
    }
    return { user: user ?? '', secret: cipher ? await config.keyring.decrypt(cipher) : '' };
  };

/** Derives site `siteId`'s variables now; null when the site does not exist. */
export async function deriveSiteEnv(
  db: Queryable,
  config: Config,
  adapters: Adapters,
  siteId: string,
): Promise<SiteEnv | null> {
  const inputs = await readInputs(db, siteId);
  return inputs ? siteEnvOf(config, adapters, inputs) : null;
}

/** A site's variables from its {@link SiteEnvInputs} (no I/O beyond decrypting); null without a site. */
export async function siteEnvOf(
  config: Config,
  adapters: Adapters,
  inputs: SiteEnvInputs,
): Promise<SiteEnv | null> {
  if (!inputs.site) return null;
  const live = inputs.connections.flatMap((r) => {
    const name = serviceNameIn(r);
    if (name === null) return [];
    const family = familyOf(r.kind, serviceText(r, 'engine'));
    const key = connectionKey(r.kind, r.resource_id);
    const createdAt = new Date(r.created_at).getTime();
    return [{ row: r, named: { key, family, name, createdAt, id: r.id, holdsPlain: r.holds_plain } }];
  });
  const owners = nameOwners(live.map((l) => l.named));
  const holders = plainHolders(live.map((l) => l.named));
  const derived: Record<string, string> = {};
  const ctx = { config, adapters, login: loginWith(config) };
  for (const { row, named } of live) {
    const values = await kindOf(row.kind).values(ctx, row);
    for (const [name, role] of namesWithRoles(named.family, named.name, holders.has(named.key))) {
      if (owners.get(name) === named.key) derived[name] = values[role] ?? '';
    }
  }
  if (inputs.managed_key) derived[MANAGED_KEY_NAME] = await config.keyring.decrypt(inputs.managed_key);
  const user = inputs.site.vars_ciphertext
    ? (JSON.parse(await config.keyring.decrypt(inputs.site.vars_ciphertext)) as Record<string, string>)
    : {};
  return {
    siteId: inputs.site.id,
    projectId: inputs.site.project_id,
    user,
    derived,
    effective: { ...user, ...derived },
  };
}
