/**
 * A database's or bucket's page: what it is, its Access section, its external principals and,
 * for admins, its own credential (shown on request, rotated after a confirmation). Stopping,
 * starting and deleting are here too.
 */
import { Hono } from 'hono';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import type { AccessListing, Bucket, Database, Project } from '../api-shapes';
import { ApiFailure, path } from '../console-api';
import { type ConsoleContext, type ConsoleEnv, signedIn } from '../console-env';
import { engineLabel, When } from '../format';
import { Card, ConfirmForm, ConfirmPage, CsrfField, Layout } from '../layout';
import { canAdmin, canWrite } from '../role-offers';
import { AccessSection } from './access';
import { PrincipalsSection, SecretPage } from './principals';

export const servicePages = new Hono<ConsoleEnv>();

type Segment = 'databases' | 'buckets';
const KIND = { databases: 'database', buckets: 'bucket' } as const;

servicePages.get('/projects/:p/:seg{(?:databases|buckets)}/:id', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { p, id } = c.req.param();
  const seg = c.req.param('seg') as Segment;
  const kind = KIND[seg];
  const [project, list, listing] = await Promise.all([
    api.get<Project>(path`/projects/${p}`),
    api.get<{ databases?: Database[]; buckets?: Bucket[] }>(`${path`/projects/${p}`}/${seg}`),
    api.get<AccessListing>(`${path`/projects/${p}`}/${seg}/${path`${id}/access`}`),
  ]);
  const service = (list.databases ?? list.buckets ?? []).find((s) => s.id === id.toLowerCase());
  if (!service) throw new ApiFailure(404, 'NOT_FOUND', `${kind} not found`);
  const base = consolePath.service(project.slug, seg, service.id);
  const database = 'engine' in service ? service : undefined;
  return c.html(
    <Layout
      title={`${database ? 'Database' : 'Bucket'} ${service.name}`}
      crumbs={[
        { href: consolePath.project(project.slug), label: project.name },
        { href: base, label: service.name },
      ]}
      csrf={csrf}
      flash={flash}
    >
      <p class="hint">
        {database
          ? `${engineLabel(database.engine)} · ${database.status}`
          : `region ${(service as Bucket).region}`}{' '}
        · created <When at={service.created_at} />
      </p>
      <AccessSection
        project={project}
        kind={kind}
        resourceId={service.id}
        name={service.name}
        listing={listing}
        csrf={csrf}
      >
        <PrincipalsSection
          project={project}
          kind={kind}
          segment={seg}
          resourceId={service.id}
          principals={listing.principals ?? []}
          csrf={csrf}
        />
      </AccessSection>
      {canAdmin(project) && (
        <Card id="credential" title={<>The {kind}'s own credential</>}>
          <p class="hint">Apps' own credentials do not change when it is rotated.</p>
          <div class="actions">
            <form method="post" action={`${base}/credentials`} class="inline">
              <CsrfField csrf={csrf} />
              <button type="submit">Show credential</button>
            </form>
            <ConfirmForm
              action={`${base}/credentials/rotate`}
              csrf={csrf}
              label="Rotate credential"
              danger={false}
              question={`Rotate ${service.name}'s own credential? Whoever uses the current one is cut off.`}
            />
          </div>
        </Card>
      )}
      {canWrite(project) && (
        <Card id="manage" title="Manage">
          <div class="actions">
            {database && (
              <form
                method="post"
                action={`${base}/${database.status === 'running' ? 'stop' : 'start'}`}
                class="inline"
              >
                <CsrfField csrf={csrf} />
                <button type="submit">
                  {database.status === 'running' ? 'Stop database' : 'Start database'}
                </button>
              </form>
            )}
            <ConfirmForm
              action={`${base}/delete`}
              csrf={csrf}
              label={`Delete ${kind}`}
              question={`Delete ${kind} ${service.name}? Its connections, credentials and principals go with it.`}
            />
          </div>
        </Card>
      )}
    </Layout>,
  );
});

const ROOT = '/projects/:p/:seg{(?:databases|buckets)}/:id';

servicePages.post(`${ROOT}/:action{(?:stop|start|delete)}`, async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, seg, id, action } = c.req.param();
  const form = await formOf(c);
  const back = consolePath.service(p, seg, id);
  const target = `${path`/projects/${p}`}/${seg}/${path`${id}`}`;
  if (action !== 'delete') {
    return act(c, back, async () => {
      const db = await api.post<Database>(`${target}/${action}`);
      return `The database is ${db.status}.`;
    });
  }
  if (unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title="Delete"
        question="Delete this service, its connections and its principals?"
        action={`${back}/delete`}
        fields={{}}
        back={back}
        csrf={csrf}
      />,
    );
  }
  return act(c, consolePath.project(p), async () => {
    await api.delete(target);
    return 'Deleted.';
  });
});

const credential = async (c: ConsoleContext) => {
  const { api, csrf } = signedIn(c);
  const { p = '', seg = '', id = '' } = c.req.param();
  const rotate = c.req.path.endsWith('/rotate');
  const form = await formOf(c);
  const back = consolePath.service(p, seg, id);
  const target = `${path`/projects/${p}`}/${seg}/${path`${id}`}/credentials`;
  if (rotate && unconfirmed(form)) {
    return c.html(
      <ConfirmPage
        title="Rotate credential"
        question="Rotate the service's own credential?"
        action={`${back}/credentials/rotate`}
        fields={{}}
        back={back}
        csrf={csrf}
      />,
    );
  }
  let shown: Record<string, unknown> | undefined;
  const refused = await act(c, back, async () => {
    shown = rotate ? await api.post(`${target}/rotate`) : await api.get(target);
    return '';
  });
  if (!shown) return refused;
  return c.html(
    <SecretPage
      title={rotate ? 'New credential' : 'Credential'}
      back={back}
      csrf={csrf}
      values={shown}
      again={`Admins can show this credential again from its page (Show credential); rotating it gives a new one and cuts off whoever uses this one.`}
    />,
  );
};
servicePages.post(`${ROOT}/credentials`, credential);
servicePages.post(`${ROOT}/credentials/rotate`, credential);
