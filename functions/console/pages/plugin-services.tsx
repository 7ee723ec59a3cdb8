/**
 * The services of the kinds plugins register: on the project's page a card per kind with its
 * services (their name and the columns the kind shows) and, for writers, a create form offering
 * the fields the kind is made with (kinds/creation-fields.ts); a page per service with what it is,
 * the sites connected to it and, for writers, its deletion. All read and changed through the
 * kind's own routes (routes/plugin-services.ts) and the project's connections.
 */
import { Hono } from 'hono';
import { type CreationField, creationBody, creationFields } from '../../kinds/creation-fields';
import { kindListKey, kindOfSegment, kindSegment, pluginKinds } from '../../kinds/registry';
import { act, consolePath, formOf, unconfirmed } from '../actions';
import type { Connection, Kind, Project } from '../api-shapes';
import { SectionCard } from '../components';
import { ApiFailure, type ConsoleApi, path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { When } from '../format';
import { Icon } from '../icons';
import { Card, ConfirmForm, ConfirmPage, CsrfField, Layout } from '../layout';
import { canWrite } from '../role-offers';
import { DataTable } from '../table';

/** One service of a plugin's kind, as its listing route answers it. */
type PluginService = { id: string; name: string; created_at: string } & Record<string, unknown>;

/** A plugin's kind with the project's services of it. */
export interface PluginServiceList {
  kind: { name: string; word: string; plural: string; shown: readonly string[]; fields: CreationField[] };
  segment: string;
  services: PluginService[];
}

/** `word` with a capital first letter, as a heading begins. */
const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** A service's shown columns in words: `max memory mb 128, …`. */
const shownText = (shown: readonly string[], service: PluginService): string =>
  shown.map((column) => `${column.replaceAll('_', ' ')} ${String(service[column] ?? '')}`).join(', ');

/** The plugin kind whose services' segment is `segment`; the console's 404 when no plugin registered one. */
const pluginOfSegment = (segment: string) => {
  const kind = kindOfSegment(segment);
  const plugin = pluginKinds().find((k) => k.name === kind);
  if (plugin === undefined) throw new ApiFailure(404, 'NOT_FOUND', `no kind has services at ${segment}`);
  return plugin;
};

/** The project's services of every kind a plugin registered, read through each kind's listing route. */
export function readPluginServices(api: ConsoleApi, project: string): Promise<PluginServiceList[]> {
  return Promise.all(
    pluginKinds().map(async (k) => {
      const segment = kindSegment(k.name as Kind);
      const answer = await api.get<Record<string, PluginService[]>>(
        `${path`/projects/${project}`}/${segment}`,
      );
      return {
        kind: {
          name: k.name,
          word: k.word,
          plural: k.plural,
          shown: k.shown,
          fields: creationFields(k.creation.fields),
        },
        segment,
        services: answer[kindListKey(k.name as Kind)] ?? [],
      };
    }),
  );
}

/** A card per plugin kind: its services and, for a writer, the form that makes one. */
export function PluginServiceCards(props: {
  slug: string;
  lists: PluginServiceList[];
  writer: boolean;
  csrf: string;
}) {
  if (props.lists.length === 0) return null;
  return (
    <div class="cards cards-2">
      {props.lists.map(({ kind, segment, services }) => (
        <SectionCard
          id={segment}
          title={capitalised(kind.plural)}
          actions={<span class="count">{services.length}</span>}
        >
          {services.length === 0 ? (
            <p class="hint">{`No ${kind.plural} yet.`}</p>
          ) : (
            <ul class="items">
              {services.map((s) => (
                <li>
                  <a href={consolePath.pluginService(props.slug, segment, s.id)}>{s.name}</a>
                  <span class="item-meta hint">{shownText(kind.shown, s)}</span>
                </li>
              ))}
            </ul>
          )}
          {props.writer ? (
            <form
              method="post"
              action={`${consolePath.project(props.slug)}/services/${segment}`}
              class="row create"
            >
              <CsrfField csrf={props.csrf} />
              <label>
                Name
                <input type="text" name="name" required />
              </label>
              {kind.fields.map((field) => (
                <CreationInput field={field} />
              ))}
              <button type="submit" class="secondary">
                <Icon name="plus" />
                {`Create ${kind.word}`}
              </button>
            </form>
          ) : null}
        </SectionCard>
      ))}
    </div>
  );
}

/** A creation field's input: a choice of its values, a number within its bounds, a checkbox, or text. */
function CreationInput({ field }: { field: CreationField }) {
  const label = field.name.replaceAll('_', ' ');
  if (field.type === 'boolean') {
    return (
      <label>
        <input type="checkbox" name={field.name} checked={field.default === true} />
        {label}
      </label>
    );
  }
  const preset = field.default === undefined ? undefined : String(field.default);
  if (field.choices) {
    return (
      <label>
        {label}
        <select name={field.name} required={field.required}>
          {field.required ? null : <option value="">default</option>}
          {field.choices.map((choice) => (
            <option value={choice} selected={choice === preset}>
              {choice}
            </option>
          ))}
        </select>
      </label>
    );
  }
  const numeric = field.type === 'number' || field.type === 'integer';
  return (
    <label>
      {label}
      <input
        type={numeric ? 'number' : 'text'}
        name={field.name}
        required={field.required}
        placeholder={preset ?? (field.required ? undefined : 'default')}
        {...(numeric
          ? { min: field.minimum, max: field.maximum, step: field.type === 'integer' ? 1 : 'any' }
          : {})}
      />
    </label>
  );
}

export const pluginServicePages = new Hono<ConsoleEnv>();

pluginServicePages.post('/projects/:p/services/:segment', async (c) => {
  const { api } = signedIn(c);
  const { p, segment } = c.req.param();
  const plugin = pluginOfSegment(segment);
  const form = await formOf(c);
  const name = form.name ?? '';
  const fields = creationBody(creationFields(plugin.creation.fields), form);
  return act(
    c,
    consolePath.project(p),
    async () => {
      await api.post(`${path`/projects/${p}`}/${segment}`, { name, ...fields });
      return `Created ${plugin.word} ${name}.`;
    },
    segment,
  );
});

pluginServicePages.get('/projects/:p/services/:segment/:id', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { p, segment, id } = c.req.param();
  const plugin = pluginOfSegment(segment);
  const [project, service, all] = await Promise.all([
    api.get<Project>(path`/projects/${p}`),
    api.get<PluginService>(`${path`/projects/${p}`}/${segment}/${path`${id}`}`),
    api.get<{ connections: Connection[] }>(`${path`/projects/${p}/connections`}?kind=${plugin.name}`),
  ]);
  const connections = all.connections.filter((conn) => conn.resource_id === service.id);
  const page = consolePath.pluginService(project.slug, segment, service.id);
  return c.html(
    <Layout
      title={`${capitalised(plugin.word)} ${service.name}`}
      crumbs={[
        { href: consolePath.project(project.slug), label: project.name },
        { href: page, label: service.name },
      ]}
      csrf={csrf}
      flash={flash}
    >
      <p class="hint">
        {shownText(plugin.shown, service)}
        {plugin.shown.length > 0 ? ' · ' : ''}created <When at={service.created_at} />
      </p>
      <Card id="sites" title="Connected sites">
        <DataTable
          rows={connections}
          empty={`No site is connected to this ${plugin.word}.`}
          columns={[
            {
              label: 'Site',
              cell: (conn) => <a href={consolePath.site(project.slug, conn.site_id)}>{conn.site_slug}</a>,
            },
            { label: 'Level', cell: (conn) => conn.level },
            { label: 'Connected', class: 'nowrap', cell: (conn) => <When at={conn.created_at} /> },
          ]}
        />
      </Card>
      {canWrite(project) && (
        <Card id="manage" title="Manage">
          <ConfirmForm
            action={`${page}/delete`}
            csrf={csrf}
            label={`Delete ${plugin.word}`}
            question={`Delete ${plugin.word} ${service.name}? Its connections go with it.`}
          />
        </Card>
      )}
    </Layout>,
  );
});

pluginServicePages.post('/projects/:p/services/:segment/:id/delete', async (c) => {
  const { api, csrf } = signedIn(c);
  const { p, segment, id } = c.req.param();
  const plugin = pluginOfSegment(segment);
  const back = consolePath.pluginService(p, segment, id);
  if (unconfirmed(await formOf(c))) {
    return c.html(
      <ConfirmPage
        title="Delete"
        question={`Delete this ${plugin.word} and its connections?`}
        action={`${back}/delete`}
        fields={{}}
        back={back}
        csrf={csrf}
      />,
    );
  }
  return act(c, consolePath.project(p), async () => {
    await api.delete(`${path`/projects/${p}`}/${segment}/${path`${id}`}`);
    return `Deleted the ${plugin.word}.`;
  });
});
