/**
 * The project page's Health card: what needs attention, each with a link to where to look.
 * Stopped databases and disabled auth apps (their pages), sites whose live patches fail or
 * died (their Delivery tab, where `Retry` is), and rotations not yet done, delivering or
 * draining (the site's Delivery tab follows them), from `GET /projects/:id/health`.
 */

import type { CredentialKindName } from '../../kinds/registry';
import { consolePath } from '../actions';
import type { AuthApp, Connection, Database } from '../api-shapes';
import { Badge, SectionCard } from '../components';
import { authAppLabel, exactTime, kindWord, relativeTime } from '../format';

/** The API's health answer. */
export interface ProjectHealth {
  deliveries: {
    site_id: string;
    site_slug: string;
    failed: number;
    dead: number;
    last_error: string | null;
    latest_at: string;
  }[];
  rotations: {
    site_id: string;
    site_slug: string;
    kind: CredentialKindName;
    resource_id: string;
    state: 'delivering' | 'draining';
    started_at: string;
    retires_by: string | null;
    old_sessions: number | null;
  }[];
}

/** One thing that needs attention: what, a line saying more, where to look, its state. */
interface Issue {
  href: string;
  text: string;
  detail?: string;
  /** The whole detail, for a detail cut short. */
  detailTitle?: string;
  status: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The failing deliveries of a site as an issue. */
function deliveryIssue(slug: string, d: ProjectHealth['deliveries'][number]): Issue {
  const counts = [
    d.dead > 0 ? plural(d.dead, 'dead patch', 'dead patches') : '',
    d.failed > 0 ? plural(d.failed, 'patch retrying', 'patches retrying') : '',
  ].filter(Boolean);
  return {
    href: consolePath.site(slug, d.site_id, 'delivery'),
    text: `Site ${d.site_slug}: ${counts.join(', ')}`,
    detail: d.last_error ?? undefined,
    detailTitle: d.last_error ?? undefined,
    status: d.dead > 0 ? 'dead' : 'failed',
  };
}

/** A rotation not yet done as an issue, naming the service from the project's connections. */
function rotationIssue(
  slug: string,
  r: ProjectHealth['rotations'][number],
  connections: Connection[],
): Issue {
  const service =
    connections.find((c) => c.site_id === r.site_id && c.kind === r.kind && c.resource_id === r.resource_id)
      ?.resource_name ?? r.resource_id;
  const sessions =
    r.old_sessions === null ? '' : `, ${plural(r.old_sessions, 'old session', 'old sessions')}`;
  return {
    href: consolePath.site(slug, r.site_id, 'delivery'),
    text: `Rotating ${r.site_slug}'s ${kindWord(r.kind)} credential for ${service}`,
    // Plain text, so one ellipsis cuts it and the title says it whole with exact times.
    detail:
      r.state === 'delivering'
        ? `New secret on its way to the app; started ${relativeTime(r.started_at)}`
        : `Old secret retires ${r.retires_by ? relativeTime(r.retires_by) : 'once unused'}${sessions}`,
    detailTitle:
      r.state === 'delivering'
        ? `New secret on its way to the app; started ${exactTime(r.started_at)}`
        : `Old secret retires ${r.retires_by ? `by ${exactTime(r.retires_by)}` : 'once unused'}${sessions}`,
    status: r.state,
  };
}

/** What needs attention across the project, each with where to look. */
export function HealthCard(p: {
  slug: string;
  databases: Database[];
  authApps: AuthApp[];
  connections: Connection[];
  health: ProjectHealth;
}) {
  const issues: Issue[] = [
    ...p.health.deliveries.map((d) => deliveryIssue(p.slug, d)),
    ...p.health.rotations.map((r) => rotationIssue(p.slug, r, p.connections)),
    ...p.databases
      .filter((d) => d.status !== 'running')
      .map((d) => ({
        href: consolePath.service(p.slug, 'databases', d.id),
        text: `Database ${d.name}`,
        status: d.status,
      })),
    ...p.authApps
      .filter((a) => !a.enabled)
      .map((a) => ({
        href: consolePath.service(p.slug, 'auth-apps', a.id),
        text: `Auth app ${authAppLabel(a)}`,
        status: 'disabled',
      })),
  ];
  return (
    <SectionCard
      id="health"
      title="Health"
      icon={issues.length === 0 ? 'ok' : 'warning'}
      actions={issues.length > 0 ? <span class="count">{issues.length}</span> : undefined}
    >
      {issues.length === 0 ? (
        <p class="hint">
          Every database is running, every auth app is enabled, no live patch is failing and no rotation is
          under way.
        </p>
      ) : (
        <ul class="items">
          {issues.map((i) => (
            <li>
              <div class="item-main">
                <a href={i.href} title={i.text}>
                  {i.text}
                </a>
                {i.detail !== undefined && (
                  <span class="hint" title={i.detailTitle}>
                    {i.detail}
                  </span>
                )}
              </div>
              <Badge status={i.status} />
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  );
}
