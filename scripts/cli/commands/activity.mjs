// @ts-check
/** `tether activity`: the project's record of changes, newest first, or followed as they happen. */
import { dataOf } from '../lib/api.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson, printTable, say, when } from '../lib/output.mjs';
import { projectOf } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/api.mjs').Schemas['ActivityEvent']} ActivityEvent
 * @typedef {{ site?: string, action?: string, limit: string, follow?: boolean, json?: boolean, interval: string }} Options
 */

/** How an event's actor reads in a table. @param {ActivityEvent} e */
const who = (e) => e.actor.email ?? e.actor.name ?? e.actor.type;

/** One event as a table row (its time as the table shows times). @param {ActivityEvent} e */
const row = (e) => [e.at, who(e), e.via, e.action, e.target.name ?? e.target.id];

/** One event as a line, for --follow. @param {ActivityEvent} e */
const line = (e) => [when(e.at), ...row(e).slice(1)].join('  ');

/** @param {Command} program */
export function registerActivity(program) {
  program
    .command('activity')
    .description("the project's record of changes: who changed what, when and how (newest first)")
    .option('--site <site>', 'only changes of this site (slug or id)')
    .option('--action <action>', 'only this action (connection.level) or resource (connection)')
    .option('--limit <n>', 'how many events (1 to 200)', '20')
    .option('--follow', 'keep printing new events as they happen (Ctrl-C stops)')
    .option('--interval <seconds>', 'with --follow, how often to look for new events', '2')
    .option('--json', 'print the API answer as JSON (with --follow, one event per line)')
    .addHelpText(
      'after',
      examples([
        'tether activity',
        'tether activity --site web --action connection',
        'tether activity --follow',
      ]),
    )
    .action(async (/** @type {Options} */ opts, cmd) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200)
        throw new UsageError('--limit takes 1 to 200');
      const interval = Number(opts.interval);
      if (!(interval > 0)) throw new UsageError('--interval takes a number of seconds above 0');
      const ctx = await contextOf(cmd);
      const api = ctx.api();
      const params = {
        path: { id: projectOf(ctx.settings) },
        query: {
          limit,
          ...(opts.site ? { site_id: opts.site } : {}),
          ...(opts.action ? { action: opts.action } : {}),
        },
      };
      const read = () => dataOf(api.GET('/api/v1/projects/{id}/activity', { params }));
      const first = await read();
      if (!opts.follow) {
        if (opts.json) return printJson(first);
        if (first.events.length === 0) return say('No activity yet.');
        return printTable(['WHEN', 'WHO', 'VIA', 'ACTION', 'TARGET'], first.events.map(row));
      }
      // Oldest first while following, so the newest line is the last one printed.
      const seen = new Set();
      /** @param {ActivityEvent[]} events newest first */
      const show = (events) => {
        for (const e of [...events].reverse()) {
          if (seen.has(e.id)) continue;
          seen.add(e.id);
          say(opts.json ? JSON.stringify(e) : line(e));
        }
      };
      show(first.events);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, interval * 1000));
        const page = await read();
        show(page.events);
      }
    });
}
