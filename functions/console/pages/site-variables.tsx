/**
 * A site's Variables tab: the user-set variables (edited by writers as NAME=value lines, saved
 * as the full map the API's PUT takes; a refused save shows the typed lines again with the
 * reason) and the effective variables the app is handed, listed by name with where each comes
 * from, each value hidden until a writer reveals it, with `Copy NAME`, `Copy all` and
 * `Download .env` (the effective set as a dotenv file).
 */
import { Hono } from 'hono';
import { toDotenv } from '../../domain/dotenv';
import { act, consolePath, formOf } from '../actions';
import type { Connection } from '../api-shapes';
import { VariableName } from '../components';
import { ApiFailure, path } from '../console-api';
import { type ConsoleContext, type ConsoleEnv, signedIn } from '../console-env';
import { CopyButton, copyNames } from '../copy';
import { Card, CsrfField } from '../layout';
import { canWrite } from '../role-offers';
import { DataTable } from '../table';
import { parseLines, toLines } from '../variable-lines';
import { loadSite, SitePage } from './site-shell';

export const siteVariablesPages = new Hono<ConsoleEnv>();

type Vars = Record<string, string>;

/** Where an effective variable comes from, in words. */
function sourceOf(name: string, fromConnection: Map<string, string>, user: Vars): string {
  const conn = fromConnection.get(name);
  if (conn) return name in user ? `connection ${conn} (overrides yours)` : `connection ${conn}`;
  return name in user ? 'you' : 'Tether (managed)';
}

async function renderVariables(c: ConsoleContext, refused?: { typed: string; message: string }) {
  const { api, csrf, flash } = signedIn(c);
  const { p = '', s = '' } = c.req.param();
  const [{ project, site }, user, listing, effective] = await Promise.all([
    loadSite(api, p, s),
    api.get<{ vars: Vars }>(path`/projects/${p}/sites/${s}/env`),
    api.get<{ connections: Connection[] }>(path`/projects/${p}/sites/${s}/connections`),
    api.getIfAllowed<{ vars: Vars }>(path`/projects/${p}/sites/${s}/env/effective`),
  ]);
  const writer = canWrite(project);
  const fromConnection = new Map(
    listing.connections.flatMap((conn) => conn.env_names.map((n) => [n, conn.resource_name] as const)),
  );
  const names = [
    ...new Set([...Object.keys(user.vars), ...fromConnection.keys(), ...Object.keys(effective?.vars ?? {})]),
  ].sort();
  const typed = refused?.typed ?? toLines(user.vars);
  const action = (what: string) => consolePath.site(project.slug, site.id, what);
  const copyName = copyNames(names, ['Copy all']);
  return c.html(
    <SitePage project={project} site={site} tab="variables" csrf={csrf} flash={flash}>
      <Card id="user-vars" title="Your variables">
        {writer ? (
          <form method="post" action={action('variables')} class="stack">
            <CsrfField csrf={csrf} />
            <label for="user-vars">Variables</label>
            <textarea
              id="user-vars"
              name="vars"
              aria-describedby={refused ? 'user-vars-error user-vars-hint' : 'user-vars-hint'}
              aria-invalid={refused ? 'true' : undefined}
              spellcheck={false}
            >
              {typed}
            </textarea>
            {refused && (
              <p id="user-vars-error" class="field-error" role="alert">
                Not saved: {refused.message}. Your lines are kept above; fix them and save again.
              </p>
            )}
            <p id="user-vars-hint" class="hint">
              One NAME=value per line (letters, digits and _, not starting with a digit); a value of several
              lines goes in double quotes. Saving replaces the whole set; a variable a connection derives
              under the same name wins.
            </p>
            <div>
              <button type="submit">Save variables</button>
            </div>
          </form>
        ) : Object.keys(user.vars).length === 0 ? (
          <p>None set.</p>
        ) : (
          <ul>
            {Object.keys(user.vars)
              .sort()
              .map((k) => (
                <li>
                  <code>{k}</code>
                </li>
              ))}
          </ul>
        )}
      </Card>
      <Card id="effective" title="Effective variables">
        <p class="hint">
          What the app is handed: your variables and those its connections and Tether derive (derived ones
          win).
        </p>
        {effective && (
          <div class="actions">
            <CopyButton label="all" value={toDotenv(effective.vars)} />
            <form method="post" action={action('variables/download')} class="inline">
              <CsrfField csrf={csrf} />
              <button type="submit" class="secondary">
                Download .env
              </button>
            </form>
          </div>
        )}
        <DataTable
          rows={names}
          empty="No variables yet."
          columns={[
            { label: 'Name', cell: (name) => <VariableName name={name} /> },
            { label: 'From', cell: (name) => sourceOf(name, fromConnection, user.vars) },
            {
              label: 'Value',
              cell: (name) =>
                effective && name in effective.vars ? (
                  <div class="actions">
                    <details>
                      <summary>
                        Reveal<span class="vh"> {name}</span>
                      </summary>
                      <code class="secret">{effective.vars[name]}</code>
                    </details>
                    <CopyButton
                      label={name}
                      name={copyName.get(name)}
                      value={effective.vars[name] ?? ''}
                      compact
                    />
                  </div>
                ) : (
                  <span class="hint">hidden</span>
                ),
            },
          ]}
        />
      </Card>
    </SitePage>,
    refused ? 400 : 200,
  );
}

siteVariablesPages.get('/projects/:p/sites/:s/variables', (c) => renderVariables(c));

siteVariablesPages.post('/projects/:p/sites/:s/variables', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  const form = await formOf(c);
  const typed = form.vars ?? '';
  try {
    const { vars } = await api.put<{ vars: Vars }>(path`/projects/${p}/sites/${s}/env`, {
      vars: parseLines(typed),
    });
    return act(
      c,
      consolePath.site(p, s, 'variables'),
      async () => `Saved ${Object.keys(vars).length} variable(s).`,
    );
  } catch (err) {
    if (!(err instanceof ApiFailure) || err.status !== 400) throw err;
    // Shown again as typed, with the reason, instead of throwing the lines away.
    return renderVariables(c, { typed, message: err.message });
  }
});

/** The effective set as a `.env` file (a writer's; a reader is refused by the API). */
siteVariablesPages.post('/projects/:p/sites/:s/variables/download', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  const { vars } = await api.get<{ vars: Vars }>(path`/projects/${p}/sites/${s}/env/effective`);
  return c.body(toDotenv(vars), 200, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Disposition': `attachment; filename="${s.replace(/[^\w.-]/g, '_')}.env"`,
  });
});
