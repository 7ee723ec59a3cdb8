/**
 * A site's Delivery tab (contract §11): where its live patches go (the target form, admin only),
 * and its latest deliveries with their state up to live as a badge (and when they went live),
 * attempts and last error, names never values; `Retry` on a dead or failed one; the rotations
 * under way (site-rotations.tsx). The form shows the current target pre-filled and only the chosen type's
 * fields (target-form.ts reads them from the registry's schemas, which stay the one rule).
 */
import { Hono } from 'hono';
import { act, consolePath, formOf } from '../actions';
import { Badge, DangerRow, DangerZone, EmptyState, Names, SectionCard, Truncate } from '../components';
import { path } from '../console-api';
import { type ConsoleEnv, signedIn } from '../console-env';
import { PostButton } from '../controls';
import { labelOf } from '../copy';
import { When } from '../format';
import { CsrfField } from '../layout';
import { canAdmin, canWrite } from '../role-offers';
import { DataTable } from '../table';
import { loadRotations, RotationPanel } from './site-rotations';
import { loadSite, SitePage } from './site-shell';
import { targetBody, targetFields, targetTypes } from './target-form';

interface Delivery {
  id: string;
  seq: number | null;
  reason: string;
  names: string[];
  status: 'pending' | 'delivered' | 'live' | 'failed' | 'dead';
  attempts: number;
  last_error: string | null;
  created_at: string;
  delivered_at?: string | null;
  live_at?: string | null;
}

/** How many names a row shows before `+N more` (the whole list on hover). */
const NAMES_SHOWN = 3;

/** A delivery's names: the first few as chips, the rest counted, every name in the title. */
function DeliveryNames({ names }: { names: string[] }) {
  const rest = names.length - NAMES_SHOWN;
  return (
    <span class="names-list" title={names.join(' ')}>
      <Names names={names.slice(0, NAMES_SHOWN)} />
      {rest > 0 && <span class="hint">{`+${rest} more`}</span>}
    </span>
  );
}

/** What each status means on the way to live (docs/contract.md §14), as the badge's title. */
const STATUS_MEANING: Record<Delivery['status'], string> = {
  pending: 'Waiting to be sent',
  delivered: 'Written to the platform; waiting for the running app to take it (a redeploy, Machine restarts)',
  live: 'The running app has it',
  failed: 'The last try failed; retrying with backoff',
  dead: 'Every retry failed; Retry sends it again',
};

/** A delivery's state up to live: its badge (written but not yet live is blue, not green), and when it went live. */
function DeliveryState({ d }: { d: Delivery }) {
  return (
    <div class="cell-stack">
      <Badge
        status={d.status}
        tone={d.status === 'delivered' ? 'info' : undefined}
        title={STATUS_MEANING[d.status]}
      />
      {d.status === 'live' && d.live_at && (
        <span class="hint">
          <When at={d.live_at} />
        </span>
      )}
    </div>
  );
}

/** The current target in words: its type and public fields, and whether its secret is set. */
function CurrentTarget({ target, configured }: { target: Record<string, unknown>; configured: boolean }) {
  if (target.type === 'default')
    return configured ? (
      <p>Live patches go to the platform's runtime receiver.</p>
    ) : (
      <EmptyState
        icon="delivery"
        text="No target: live patches wait as pending deliveries and no running app is told. Set a target below, or use tether env pull or tether run."
      />
    );
  const labels = new Map(targetFields().map((f) => [f.name, f.label]));
  const shown = Object.entries(target).filter(([k]) => k !== 'type');
  return (
    <dl class="values">
      <dt>Type</dt>
      <dd>
        <Badge status="set" tone="info">
          {String(target.type)}
        </Badge>
      </dd>
      {shown.map(([key, value]) => {
        const secret = key.endsWith('_set');
        const name = secret ? key.slice(0, -4) : key;
        return (
          <>
            <dt>{labels.get(name) ?? labelOf(name)}</dt>
            <dd>
              {secret ? (
                <Badge status={value ? 'set' : 'not set'} tone={value ? 'ok' : 'warn'} />
              ) : (
                <Truncate mono text={Array.isArray(value) ? value.join(', ') : String(value)} />
              )}
            </dd>
          </>
        );
      })}
    </dl>
  );
}

/** The target form: the type, then only its own fields (the stylesheet hides the others, with or without script). */
function TargetForm({
  action,
  csrf,
  target,
}: {
  action: string;
  csrf: string;
  target: Record<string, unknown>;
}) {
  const current = target.type === 'default' ? undefined : String(target.type);
  return (
    <form method="post" action={action} class="stack target-form">
      <CsrfField csrf={csrf} />
      <label>
        Type
        <select name="type">
          {targetTypes().map((t) => (
            <option value={t} selected={t === current}>
              {t}
            </option>
          ))}
        </select>
      </label>
      {targetFields().map((field) => {
        const forTypes = field.types.join(' ');
        const value = current && field.types.includes(current) ? target[field.name] : undefined;
        if (field.input === 'choices')
          return (
            <fieldset data-for={forTypes}>
              <legend>{field.label}</legend>
              <div class="choice-row">
                {field.choices.map((choice) => (
                  <label class="check">
                    <input
                      type="checkbox"
                      name={`${field.name}_${choice}`}
                      value="yes"
                      checked={Array.isArray(value) && value.includes(choice)}
                    />
                    {choice}
                  </label>
                ))}
              </div>
            </fieldset>
          );
        const set = current && field.types.includes(current) && target[`${field.name}_set`] === true;
        return (
          <label data-for={forTypes}>
            {field.optional ? `${field.label} (optional)` : field.label}
            <input
              type={field.input === 'secret' ? 'password' : 'text'}
              name={field.name}
              value={field.input === 'secret' || value === undefined ? '' : String(value)}
              autocomplete="off"
            />
            {set && <span class="hint">Stored encrypted; enter it again to save a change.</span>}
          </label>
        );
      })}
      <div>
        <button type="submit">Set target</button>
      </div>
    </form>
  );
}

export const siteDeliveryPages = new Hono<ConsoleEnv>();

siteDeliveryPages.get('/projects/:p/sites/:s/delivery', async (c) => {
  const { api, csrf, flash } = signedIn(c);
  const { p, s } = c.req.param();
  const [{ project, site }, target, listed, rotations] = await Promise.all([
    loadSite(api, p, s),
    api.get<Record<string, unknown> & { type: string }>(path`/projects/${p}/sites/${s}/target`),
    api.get<{ target: { type: string; configured: boolean }; deliveries: Delivery[] }>(
      path`/projects/${p}/sites/${s}/deliveries`,
    ),
    loadRotations(api, p, s),
  ]);
  const action = (what: string) => consolePath.site(project.slug, site.id, what);
  return c.html(
    <SitePage project={project} site={site} tab="delivery" csrf={csrf} flash={flash}>
      <SectionCard id="target" title="Delivery target" icon="delivery">
        <CurrentTarget target={target} configured={listed.target.configured} />
        {canAdmin(project) && <TargetForm action={action('delivery/target')} csrf={csrf} target={target} />}
      </SectionCard>
      <RotationPanel rotations={rotations} />
      <SectionCard id="deliveries" title="Deliveries" icon="activity">
        {listed.deliveries.length === 0 ? (
          <EmptyState icon="empty" text="No live patches yet: a change to this site's variables sends one." />
        ) : (
          <DataTable
            rows={listed.deliveries}
            empty=""
            columns={[
              { label: 'When', cell: (d) => <When at={d.created_at} /> },
              { label: 'Status', cell: (d) => <DeliveryState d={d} /> },
              { label: 'Reason', cell: (d) => d.reason },
              { label: 'Seq', cell: (d) => (d.seq === null ? '' : `#${d.seq}`) },
              { label: 'Attempts', cell: (d) => d.attempts },
              { label: 'Names', class: 'names', cell: (d) => <DeliveryNames names={d.names} /> },
              {
                label: 'Last error',
                cell: (d) => (d.last_error ? <Truncate text={d.last_error} /> : ''),
              },
              {
                label: 'Retry',
                when: canWrite(project),
                cell: (d) =>
                  (d.status === 'dead' || d.status === 'failed') && (
                    <PostButton
                      action={action(`delivery/${d.id}/retry`)}
                      csrf={csrf}
                      label="Retry"
                      secondary
                    />
                  ),
              },
            ]}
          />
        )}
      </SectionCard>
      {canAdmin(project) && target.type !== 'default' && (
        <DangerZone>
          <DangerRow
            title="Remove the target"
            text="Live patches go back to the platform's default receiver, or wait as pending."
          >
            <PostButton action={action('delivery/target/remove')} csrf={csrf} label="Remove target" danger />
          </DangerRow>
        </DangerZone>
      )}
    </SitePage>,
  );
});

siteDeliveryPages.post('/projects/:p/sites/:s/delivery/target', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  const form = await formOf(c);
  return act(c, consolePath.site(p, s, 'delivery'), async () => {
    const set = await api.put<{ type: string }>(path`/projects/${p}/sites/${s}/target`, targetBody(form));
    return `Live patches now go to ${set.type}; it receives the whole effective set once.`;
  });
});

siteDeliveryPages.post('/projects/:p/sites/:s/delivery/target/remove', async (c) => {
  const { api } = signedIn(c);
  const { p, s } = c.req.param();
  return act(c, consolePath.site(p, s, 'delivery'), async () => {
    await api.delete(path`/projects/${p}/sites/${s}/target`);
    return 'The target is removed.';
  });
});

siteDeliveryPages.post('/projects/:p/sites/:s/delivery/:d/retry', async (c) => {
  const { api } = signedIn(c);
  const { p, s, d } = c.req.param();
  return act(c, consolePath.site(p, s, 'delivery'), async () => {
    await api.post(path`/projects/${p}/sites/${s}/deliveries/${d}/retry`);
    return 'The delivery is sent again.';
  });
});
