/**
 * A project's Activity page (contract §13): every change, newest first, as a sentence with who,
 * when (relative, exact on hover) and how it came in; narrowed by site and by action through the
 * API's own filters, a page at a time by its cursor. Reads only: a read member sees it all.
 */
import { Hono } from 'hono';
import type { ActivityEventJson } from '../../use-cases/activity/read';
import { consolePath } from '../actions';
import type { Project, Site } from '../api-shapes';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { ACTION_GROUPS, actionWords, engineLabel, KNOWN_ACTIONS, VIA_WORDS, When } from '../format';
import { Card, Layout } from '../layout';
import { DataTable } from '../table';

export const activityPages = new Hono<ConsoleEnv>();

/** How many events a page shows. */
const PAGE_SIZE = 50;

/** Details every event of a connection carries, already said by the sentence. */
const SAID = new Set(['kind', 'resource_id', 'resource_name', 'site_slug', 'from', 'level']);

/** Who made the change, in words. */
export function actorWords(actor: ActivityEventJson['actor']): string {
  if (actor.type === 'system') return 'Tether (automatic)';
  if (actor.type === 'operator') return 'the operator';
  if (actor.type === 'api_key') return actor.name ? `API key ${actor.name}` : 'an API key';
  return actor.email ?? actor.name ?? 'an account';
}

const detailText = (v: unknown): string => (Array.isArray(v) ? v.join(', ') : String(v));

/** What changed, as a sentence without its subject: `changed the level of web → main from connect to read-only`. */
export function eventWords(e: ActivityEventJson): string {
  const d = e.details;
  const name = e.target.name ?? e.target.type;
  let text = `${actionWords(e.action)} ${name}`;
  if (e.action === 'connection.level' && d.from && d.level) text += ` from ${d.from} to ${d.level}`;
  else if (d.level && e.action !== 'connection.delete') text += ` at ${detailText(d.level)}`;
  const rest = Object.entries(d).filter(([k, v]) => !SAID.has(k) && v !== null && v !== '');
  if (rest.length > 0)
    text += ` (${rest.map(([k, v]) => `${k.replace(/_/g, ' ')}: ${k === 'engine' ? engineLabel(String(v)) : detailText(v)}`).join('; ')})`;
  return text;
}

/** The page's own query string for `changes` (empty values left out). */
function query(values: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) q.set(k, v);
  const text = q.toString();
  return text ? `?${text}` : '';
}

activityPages.get('/projects/:p/activity', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const p = c.req.param('p');
  const site = c.req.query('site') || undefined;
  const action = c.req.query('action') || undefined;
  const cursor = c.req.query('cursor') || undefined;
  const apiQuery = query({ limit: String(PAGE_SIZE), site_id: site, action, cursor });
  const [project, { sites }, page] = await Promise.all([
    api.get<Project>(path`/projects/${p}`),
    api.get<{ sites: Site[] }>(path`/projects/${p}/sites`),
    api.get<{ events: ActivityEventJson[]; next_cursor: string | null }>(
      `${path`/projects/${p}/activity`}${apiQuery}`,
    ),
  ]);
  const base = consolePath.project(project.slug);
  const here = `${base}/activity`;
  const slugOf = new Map(sites.map((s) => [s.id, s.slug]));
  return c.html(
    <Layout
      title="Activity"
      crumbs={[
        { href: base, label: project.name },
        { href: here, label: 'Activity' },
      ]}
      csrf={csrf}
      flash={flash}
    >
      <p class="hint">
        Every change to {project.name}, by anyone, from the console, the CLI, the API or Tether itself.
      </p>
      <form method="get" action={here} class="row filters" aria-label="Filter activity">
        <label>
          Site
          <select name="site">
            <option value="">All sites</option>
            {sites.map((s) => (
              <option value={s.slug} selected={site === s.slug || site === s.id}>
                {s.slug}
              </option>
            ))}
          </select>
        </label>
        <label>
          Action
          <select name="action">
            <option value="">All changes</option>
            <optgroup label="Everything about">
              {ACTION_GROUPS.map(([value, label]) => (
                <option value={value} selected={action === value}>
                  {label}
                </option>
              ))}
            </optgroup>
            <optgroup label="One action">
              {KNOWN_ACTIONS.map((a) => (
                <option value={a} selected={action === a}>
                  {a}
                </option>
              ))}
            </optgroup>
          </select>
        </label>
        <button type="submit" class="secondary">
          Filter
        </button>
        {(site || action) && (
          <a href={here} class="button-link">
            Clear filters
          </a>
        )}
      </form>
      <Card id="events" title={cursor ? 'Older changes' : 'Changes'}>
        <DataTable
          rows={page.events}
          empty={site || action ? 'No change matches these filters.' : 'Nothing has changed yet.'}
          columns={[
            { label: 'When', cell: (e) => <When at={e.at} /> },
            { label: 'Who', class: 'wrap-any', cell: (e) => actorWords(e.actor) },
            {
              label: 'What',
              class: 'wrap-any',
              cell: (e) => (
                <>
                  {eventWords(e)} <code class="action">{e.action}</code>
                </>
              ),
            },
            { label: 'Site', cell: (e) => (e.site_id ? (slugOf.get(e.site_id) ?? 'deleted site') : '—') },
            { label: 'Via', cell: (e) => VIA_WORDS[e.via] ?? e.via },
          ]}
        />
        <p class="actions">
          {cursor && <a href={`${here}${query({ site, action })}`}>Newest changes</a>}
          {page.next_cursor && (
            <a href={`${here}${query({ site, action, cursor: page.next_cursor })}`}>Older changes</a>
          )}
        </p>
      </Card>
    </Layout>,
  );
});
