/**
 * A site's Variables tab: the user-set variables (edited by writers as NAME=value lines, saved
 * as the full map the API's PUT takes) and the effective variables the app is handed, listed by
 * name, with each value hidden until a writer reveals it.
 */
import { Hono } from 'hono';
import { act, consolePath, formOf } from '../actions';
import { path } from '../api';
import { type ConsoleEnv, signedIn } from '../context';
import { CsrfField } from '../layout';
import { canWrite } from '../roles';
import type { Connection } from '../types';
import { loadSite, SitePage } from './site-shell';

export const siteVariablesPages = new Hono<ConsoleEnv>();

type Vars = Record<string, string>;

/** `NAME=value` lines as a map; blank lines and `#` comments are skipped, the value is the rest of the line. */
export function parseLines(text: string): Vars {
  const vars: Vars = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const at = line.indexOf('=');
    const name = (at < 0 ? line : line.slice(0, at)).trim();
    vars[name] = at < 0 ? '' : line.slice(at + 1);
  }
  return vars;
}

siteVariablesPages.get('/projects/:p/sites/:s/variables', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { p, s } = c.req.param();
  const [{ project, site }, user, listing, effective] = await Promise.all([
    loadSite(api, p, s),
    api.get<{ vars: Vars }>(path`/projects/${p}/sites/${s}/env`),
    api.get<{ connections: Connection[] }>(path`/projects/${p}/sites/${s}/connections`),
    api.getIfAllowed<{ vars: Vars }>(path`/projects/${p}/sites/${s}/env/effective`),
  ]);
  const writer = canWrite(project);
  const derived = new Set(listing.connections.flatMap((conn) => conn.env_names));
  const names = [
    ...new Set([...Object.keys(user.vars), ...derived, ...Object.keys(effective?.vars ?? {})]),
  ].sort();
  return c.html(
    <SitePage project={project} site={site} tab="variables" csrf={csrf} flash={flash}>
      <section class="card" aria-labelledby="user-vars-heading">
        <h2 id="user-vars-heading">Your variables</h2>
        {writer ? (
          <form method="post" action={consolePath.site(project.slug, site.id, 'variables')} class="stack">
            <CsrfField csrf={csrf} />
            <label for="user-vars">Variables</label>
            <textarea id="user-vars" name="vars" aria-describedby="user-vars-hint" spellcheck={false}>
              {Object.entries(user.vars)
                .map(([k, v]) => `${k}=${v}`)
                .join('\n')}
            </textarea>
            <p id="user-vars-hint" class="hint">
              One NAME=value per line. Saving replaces the whole set; a derived variable of the same name
              wins.
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
      </section>
      <section class="card" aria-labelledby="effective-heading">
        <h2 id="effective-heading">Effective variables</h2>
        <p class="hint">
          What the app is handed: your variables and those its connections derive (derived ones win).
        </p>
        <div class="table-wrap">
          <table class="stack-sm">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">From</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {names.map((name) => (
                <tr>
                  <td>
                    <code>{name}</code>
                  </td>
                  <td>{derived.has(name) ? 'connection' : 'you'}</td>
                  <td>
                    {effective && name in effective.vars ? (
                      <details>
                        <summary>
                          Reveal<span class="vh"> {name}</span>
                        </summary>
                        <code class="secret">{effective.vars[name]}</code>
                      </details>
                    ) : (
                      <span class="hint">hidden</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </SitePage>,
  );
});

siteVariablesPages.post('/projects/:p/sites/:s/variables', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  const form = await formOf(c);
  return act(c, consolePath.site(p, s, 'variables'), async () => {
    const { vars } = await api.put<{ vars: Vars }>(path`/projects/${p}/sites/${s}/env`, {
      vars: parseLines(form.vars ?? ''),
    });
    return `Saved ${Object.keys(vars).length} variable(s).`;
  });
});
