// @ts-check
/**
 * `tether db credentials|rotate-password <db>` (a database's main user) and
 * `tether principals ls|create|rotate|revoke` (named principals of a database or bucket,
 * contract §7). A secret is printed once to the terminal and written nowhere else, unless
 * `--env-file` names a file (mode 0600, the same writer as `env pull`).
 */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { envFileHeader, writeEnvFile } from '../lib/env-file.mjs';
import { UsageError } from '../lib/errors.mjs';
import { KIND_LIST, KINDS, orList, principalCalls } from '../lib/kinds.mjs';
import { printFields, printJson, printTable, say, when } from '../lib/output.mjs';
import { projectOf, resolveService } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/kinds.mjs').Principal} Principal
 */

/**
 * `30d`, `12h`, `2w` from now, or a date/date-time as given, as ISO 8601.
 * @param {string} text
 * @param {number} [now]
 */
export function expiryOf(text, now = Date.now()) {
  const m = /^(\d+)([hdw])$/.exec(text.trim());
  if (m) {
    const unit = { h: 3600_000, d: 86400_000, w: 7 * 86400_000 }[/** @type {'h'|'d'|'w'} */ (m[2])];
    return new Date(now + Number(m[1]) * unit).toISOString();
  }
  if (Number.isNaN(Date.parse(text)))
    throw new UsageError(`--expires: a date (2027-01-31) or a duration like 30d, 12h, 2w; got "${text}"`);
  return text;
}

/**
 * Prints what was shown (once), or writes its secret to `--env-file` (as the kind's variables) and says where.
 * @param {import('../lib/types.mjs').Kind} kind
 * @param {Record<string, unknown>} shown
 * @param {{ json?: boolean, envFile?: string, writeEnv?: string, yes?: boolean }} opts
 * @param {string} command
 */
async function showSecret(kind, shown, opts, command) {
  const file = opts.envFile ?? opts.writeEnv;
  if (file) {
    const written = await writeEnvFile(
      file,
      KINDS[kind].envOf?.(shown) ?? {},
      envFileHeader(command, 'It holds a secret'),
      {
        yes: opts.yes,
      },
    );
    const { password: _p, secret_access_key: _s, url: _u, external_url: _e, pooled_url: _o, ...rest } = shown;
    if (opts.json) printJson({ ...rest, env_file: written.file });
    else say(`Wrote the secret to ${written.file} (mode 0600); it is not shown again.`);
    return;
  }
  if (opts.json) {
    printJson(shown);
    return;
  }
  printFields(shown, 'any');
  if ('password' in shown || 'secret_access_key' in shown)
    say('The secret is shown this once and kept nowhere on this machine; store it now.');
}

/** @param {Command} db the `tether db` command */
export function registerDbCredentials(db) {
  db.command('credentials')
    .description("show the database's main user u_… with its password, URL, external and pooled URL (admin)")
    .argument('<db>', "the database's name")
    .option('--json', 'print the API answer as JSON')
    .option('--env-file <file>', 'write the URL to this file (mode 0600) instead of the terminal')
    .option('--write-env <file>', 'the same as --env-file')
    .option('-y, --yes', 'replace a file tether did not write (a backup is kept)')
    .addHelpText(
      'after',
      examples(['tether db credentials main', 'tether db credentials main --env-file .env.admin']),
    )
    .action(
      async (
        /** @type {string} */ name,
        /** @type {{ json?: boolean, envFile?: string, writeEnv?: string, yes?: boolean }} */ opts,
        cmd,
      ) => {
        const ctx = await contextOf(cmd);
        const api = ctx.api();
        const database = await resolveService(api, ctx.settings, 'database', name);
        const path = { id: projectOf(ctx.settings), dbId: database.id };
        const creds = await dataOf(
          api.GET('/api/v1/projects/{id}/databases/{dbId}/credentials', { params: { path } }),
        );
        await showSecret('database', creds, opts, 'db credentials');
      },
    );
  db.command('rotate-password')
    .description("give the database's main user a new password; apps' own credentials do not change (admin)")
    .argument('<db>', "the database's name")
    .option('--json', 'print the API answer as JSON')
    .option('--env-file <file>', 'write the new URL to this file (mode 0600) instead of the terminal')
    .option('--write-env <file>', 'the same as --env-file')
    .option('-y, --yes', 'replace a file tether did not write (a backup is kept)')
    .addHelpText('after', examples(['tether db rotate-password main']))
    .action(
      async (
        /** @type {string} */ name,
        /** @type {{ json?: boolean, envFile?: string, writeEnv?: string, yes?: boolean }} */ opts,
        cmd,
      ) => {
        const ctx = await contextOf(cmd);
        const api = ctx.api();
        const database = await resolveService(api, ctx.settings, 'database', name);
        const path = { id: projectOf(ctx.settings), dbId: database.id };
        const creds = await dataOf(
          api.POST('/api/v1/projects/{id}/databases/{dbId}/credentials/rotate', { params: { path } }),
        );
        if (!opts.json && !opts.envFile && !opts.writeEnv)
          say(`New password for ${creds.user} on database ${database.name}.`);
        await showSecret('database', creds, opts, 'db rotate-password');
      },
    );
}

/**
 * The principal calls of `<kind> <name>`, for a kind that has principals.
 * @param {import('../lib/context.mjs').Context} ctx
 * @param {string} kindWord
 * @param {string} name
 */
async function principalsOf(ctx, kindWord, name) {
  const kind = KIND_LIST.find((k) => k === kindWord);
  const where = kind && KINDS[kind].principals;
  if (!kind || !where) {
    const owners = KIND_LIST.filter((k) => KINDS[k].principals).map((k) => `a ${KINDS[k].noun}`);
    throw new UsageError(`principals belong to ${orList(owners)}, not "${kindWord}"`);
  }
  const api = ctx.api();
  const service = await resolveService(api, ctx.settings, kind, name);
  return { kind, ...principalCalls(api, where, projectOf(ctx.settings), service.id) };
}

/**
 * A principal by name or id among the service's live ones.
 * @param {{ list(): Promise<{ principals: Principal[] }> }} calls
 * @param {string} ref
 * @returns {Promise<Principal>}
 */
async function principalNamed(calls, ref) {
  const { principals } = await calls.list();
  const found = principals.find((p) => p.name === ref) ?? principals.find((p) => p.id === ref);
  if (!found)
    throw new UsageError(
      `no principal "${ref}" (principals: ${principals.map((p) => p.name).join(', ') || 'none'})`,
    );
  return found;
}

const SECRET_OPTIONS = /** @param {Command} c */ (c) =>
  c
    .option('--json', 'print the API answer as JSON')
    .option('--env-file <file>', 'write the secret to this file (mode 0600) instead of the terminal')
    // Node 20 reads `--env-file` for itself even after the script's name (tether.mjs's `#!` line
    // ends Node's options with `--`, but `node tether.mjs …` does not); this spelling always works.
    .option('--write-env <file>', 'the same as --env-file')
    .option('-y, --yes', 'replace a file tether did not write (a backup is kept)');

/** @param {Command} program */
export function registerPrincipals(program) {
  const principals = program
    .command('principals')
    .description('named principals: credentials outside systems hold on a database or bucket (admin)')
    .addHelpText(
      'after',
      examples([
        'tether principals ls database main',
        'tether principals create database main bi-tool --level read-only --allow 203.0.113.0/24 --expires 30d',
        'tether principals create bucket media ci --level read --env-file .env.ci',
        'tether principals rotate database main bi-tool',
        'tether principals revoke database main bi-tool',
      ]),
    );
  principals
    .command('ls')
    .alias('list')
    .description("list a service's principals (never a secret)")
    .argument('<kind>', 'database or bucket')
    .argument('<name>', "the service's name")
    .option('--json', 'print the API answer as JSON')
    .action(
      async (
        /** @type {string} */ kind,
        /** @type {string} */ name,
        /** @type {{ json?: boolean }} */ opts,
        cmd,
      ) => {
        const listing = await (await principalsOf(await contextOf(cmd), kind, name)).list();
        if (opts.json) return printJson(listing);
        if (listing.principals.length === 0) return say('No principals.');
        printTable(
          ['NAME', 'LEVEL', 'IDENTITY', 'SOURCES', 'EXPIRES'],
          listing.principals.map((p) => [
            p.name,
            p.level,
            p.username ?? p.access_key_id ?? '',
            p.allowed_sources.join('\n') || 'any',
            p.expires_at ? `${when(p.expires_at)}${p.expired ? ' (expired)' : ''}` : 'never',
          ]),
        );
      },
    );
  SECRET_OPTIONS(
    principals
      .command('create')
      .description('create a principal; its secret is shown once')
      .argument('<kind>', 'database or bucket')
      .argument('<name>', "the service's name")
      .argument('<principal>', "the principal's name (1 to 63 of a-z 0-9 - _, a letter first)")
      .requiredOption('--level <level>', 'database: read-only or connect; bucket: read or read-write')
      .option(
        '--allow <cidr>',
        'a source it may be used from (repeatable; a bare address is /32 or /128; not on MongoDB, whose Atlas has no per-user restriction); default any',
        (/** @type {string} */ v, /** @type {string[]} */ all) => [...all, v],
        /** @type {string[]} */ ([]),
      )
      .option('--expires <when>', 'a date (2027-01-31) or a duration like 30d, 12h, 2w; at most a year'),
  ).action(
    async (
      /** @type {string} */ kind,
      /** @type {string} */ name,
      /** @type {string} */ principal,
      /** @type {{ level: string, allow: string[], expires?: string, json?: boolean, envFile?: string, writeEnv?: string, yes?: boolean }} */ opts,
      cmd,
    ) => {
      const p = await principalsOf(await contextOf(cmd), kind, name);
      const body = {
        name: principal,
        level: opts.level,
        ...(opts.allow.length > 0 ? { allowed_sources: opts.allow } : {}),
        ...(opts.expires ? { expires_at: expiryOf(opts.expires) } : {}),
      };
      const shown = await p.create(body);
      await showSecret(p.kind, shown, opts, 'principals create');
    },
  );
  SECRET_OPTIONS(
    principals
      .command('rotate')
      .description(
        'give a principal a new secret (a bucket principal a new key pair); shown once. The old one ends at once, or with --grace works that many more seconds',
      )
      .argument('<kind>', 'database or bucket')
      .argument('<name>', "the service's name")
      .argument('<principal>', "the principal's name or id")
      .option(
        '--grace <seconds>',
        'keep the old secret working this long beside the new one (0 to 86400; a database principal gets a new username)',
      ),
  ).action(
    async (
      /** @type {string} */ kind,
      /** @type {string} */ name,
      /** @type {string} */ ref,
      /** @type {{ json?: boolean, envFile?: string, writeEnv?: string, yes?: boolean, grace?: string }} */ opts,
      cmd,
    ) => {
      const p = await principalsOf(await contextOf(cmd), kind, name);
      const found = await principalNamed(p, ref);
      const shown = await p.rotate(found.id, opts.grace);
      await showSecret(p.kind, shown, opts, 'principals rotate');
      if (!opts.json && opts.grace !== undefined && Number(opts.grace) > 0)
        say(`The old secret keeps working for ${opts.grace} seconds, then it is refused.`);
    },
  );
  principals
    .command('revoke')
    .description(
      "revoke a principal: its credential stops working at once (a database principal's sessions end)",
    )
    .argument('<kind>', 'database or bucket')
    .argument('<name>', "the service's name")
    .argument('<principal>', "the principal's name or id")
    .option('--json', 'print the API answer as JSON')
    .action(
      async (
        /** @type {string} */ kind,
        /** @type {string} */ name,
        /** @type {string} */ ref,
        /** @type {{ json?: boolean }} */ opts,
        cmd,
      ) => {
        const p = await principalsOf(await contextOf(cmd), kind, name);
        const found = await principalNamed(p, ref);
        const answer = await p.revoke(found.id);
        if (opts.json) printJson(answer);
        else say(answer.revoked ? `Revoked ${found.name}.` : `${found.name} was already revoked.`);
      },
    );
}
