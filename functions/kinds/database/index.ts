/** Databases: each one's engine (engines.ts) brings its family, values, provisioner and URLs. */
import { databases } from '../../../db/schema';
import { z } from '../../lib/openapi';
import { engineOf } from '../engines';
import { type ServiceKind, serviceText } from '../service-kind';
import { nameTakenOn, softDeletedRows } from '../service-rows';

/** The database kind. */
export const database: ServiceKind<'database'> = {
  name: 'database',
  word: 'database',
  plural: 'databases',
  commandWords: ['db', 'database'],
  levels: [
    { level: 'read-only', meaning: 'reads only' },
    { level: 'connect', meaning: 'reads and writes' },
  ],
  levelChangeConsequence: "This ends this app's open database sessions; it reconnects at the new level.",
  table: 'databases',
  nameColumn: 'name',
  enabledColumn: null,
  softDeleted: true,
  hasEngine: true,
  families: [],
  family: (engine) => (engine ? engineOf(engine).family.name : 'database'),
  derivedFrom: [
    'physical_name',
    'main_user',
    'main_password_ciphertext',
    'reader_user',
    'reader_password_ciphertext',
    'writer_user',
    'writer_password_ciphertext',
  ],
  async values(ctx, row) {
    const engineName = serviceText(row, 'engine');
    if (!engineName) return {};
    const engine = engineOf(engineName);
    // An app on the shared credential gets the database's shared login of its level once one is
    // made (always, for a stopped database's new connections); the main user is an admin secret.
    const shared = row.level === 'read-only' ? 'reader' : 'writer';
    const sharedUser = serviceText(row, `${shared}_user`);
    const login =
      sharedUser !== null
        ? await ctx.login(row, sharedUser, serviceText(row, `${shared}_password_ciphertext`))
        : await ctx.login(row, serviceText(row, 'main_user'), serviceText(row, 'main_password_ciphertext'));
    return engine.values(ctx, serviceText(row, 'physical_name') ?? '', login);
  },
  capabilities: (conns) => (conns.length > 0 ? { databases: true } : {}),
  nameTaken: nameTakenOn(
    'databases_project_name_uq',
    (name) => `a database named ${name} already exists in this project`,
  ),
  credentials: {
    credentialField: 'username',
    credentialLabel: 'User',
    networkPolicy: true,
    principalRotatesBeside: false,
    secretReturns: true,
    provisioner: (adapters, db) => engineOf(db.engine).provisioner(adapters),
    sharedOnly: (db) => engineOf(db.engine).sharedOnly(db),
    sharedNow: (db) =>
      engineOf(db.engine).sharedOnly(db) !== null || db.status !== 'running' || db.deletedAt !== null,
    sharedLogins: true,
    sharedLoginsOf: (db) => db,
    keeps: (db, name) => name === db.mainUser,
    shown(ctx, db, name, secret) {
      const urls = engineOf(db.engine).urls(ctx, db, { user: name, secret });
      return { username: name, password: secret, url: urls.external_url };
    },
    principalCap: (config) => ({
      max: config.MAX_PRINCIPALS_PER_DATABASE,
      variable: 'MAX_PRINCIPALS_PER_DATABASE',
    }),
    principalDocs: {
      idParam: 'dbId',
      shown: {
        name: 'DatabasePrincipalShown',
        fields: {
          username: z.string().openapi({ description: 'c_ plus 8 characters' }),
          password: z.string(),
          url: z.string().openapi({ description: 'the connection string, from outside the platform' }),
        },
      },
      enforced:
        'PostgreSQL VALID UNTIL and a host rule delivered with the network policy; MongoDB Atlas deleteAfterDate and authenticationRestrictions.clientSource. An admin API that refuses clientSource makes a MongoDB principal with allowed_sources 400, nothing made',
      rotated: '',
      revoked: ' and its open sessions end',
      beside:
        'the new secret is a second login `c_…` with the same level, expiry and sources, so `username` changes (with sources on PostgreSQL it is `pending` until the network policy naming it is acknowledged).',
    },
    ...softDeletedRows<'database'>(databases, 'database'),
  },
};
