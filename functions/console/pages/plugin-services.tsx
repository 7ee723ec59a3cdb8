/**
 * The services of the kinds plugins register, on the project's page: a card per kind with its
 * services (their name and the columns the kind shows) and, for writers, a create form; all read
 * and made through the kind's own routes (routes/plugin-services.ts), the form offering the fields
 * the kind is made with (kinds/creation-fields.ts).
 */
import { Hono } from 'hono';
import { type CreationField, creationBody, creationFields } from '../../kinds/creation-fields';
import { kindOfSegment, kindSegment, pluginKinds } from '../../kinds/registry';
import { act, consolePath, formOf } from '../actions';
import type { Kind } from '../api-shapes';
import { SectionCard } from '../components';
import { type ConsoleApi, path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { Icon } from '../icons';
import { CsrfField } from '../layout';

/** One service of a plugin's kind, as its listing route answers it. */
type PluginService = { id: string; name: string; created_at: string } & Record<string, unknown>;

/** A plugin's kind with the project's services of it. */
export interface PluginServiceList {
  kind: { name: string; word: string; plural: string; shown: readonly string[]; fields: CreationField[] };
  segment: string;
  services: PluginService[];
}

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
        services: answer[segment.replaceAll('-', '_')] ?? [],
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
          title={kind.plural.charAt(0).toUpperCase() + kind.plural.slice(1)}
          actions={<span class="count">{services.length}</span>}
        >
          {services.length === 0 ? (
            <p class="hint">{`No ${kind.plural} yet.`}</p>
          ) : (
            <ul class="items">
              {services.map((s) => (
                <li>
                  <span>{s.name}</span>
                  <span class="item-meta hint">
                    {kind.shown
                      .map((column) => `${column.replaceAll('_', ' ')} ${String(s[column] ?? '')}`)
                      .join(', ')}
                  </span>
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
  const kind = kindOfSegment(segment);
  const plugin = pluginKinds().find((k) => k.name === kind);
  if (plugin === undefined) return c.notFound();
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
