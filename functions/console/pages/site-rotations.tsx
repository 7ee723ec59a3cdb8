/**
 * The Delivery tab's rotation panel (docs/contract.md §14): each of the site's database and
 * bucket connections whose graceful rotation is still under way, with its state (`delivering`
 * until the new secret is live where the app runs, `draining` until the old login has no
 * session), the old login's open sessions and the deadline by which the old secret is refused.
 */

import { Badge, EmptyState, SectionCard } from '../components';
import { type ConsoleApi, path } from '../console-api';
import { When } from '../format';
import { DataTable } from '../table';

/** A connection's rotation as `GET …/rotation` answers it. */
interface Rotation {
  state: 'none' | 'delivering' | 'draining' | 'done';
  started_at: string | null;
  live_at: string | null;
  retires_by: string | null;
  old_sessions: number | null;
}

/** A rotation under way, with the connection it belongs to. */
export interface RotationInProgress {
  kind: string;
  name: string;
  rotation: Rotation;
}

/** A rotation not yet done, as the project's health (`GET /projects/:id/health`) lists it. */
interface OpenRotation extends Omit<Rotation, 'state'> {
  site_id: string;
  site_slug: string;
  kind: string;
  resource_id: string;
  resource_name: string | null;
  state: 'delivering' | 'draining';
}

/** The site's rotations under way, from the project's health: one read, sent beside the page's others. */
export async function loadRotations(api: ConsoleApi, p: string, s: string): Promise<RotationInProgress[]> {
  const { rotations } = await api.get<{ rotations: OpenRotation[] }>(path`/projects/${p}/health`);
  return rotations
    .filter((r) => r.site_id === s || r.site_slug === s)
    .map((r) => ({
      kind: r.kind,
      name: r.resource_name ?? r.resource_id,
      rotation: {
        state: r.state,
        started_at: r.started_at,
        live_at: r.live_at,
        retires_by: r.retires_by,
        old_sessions: r.old_sessions,
      },
    }));
}

/** The old login's open sessions in words: unknown where the system does not tell (MongoDB). */
const sessionsOf = (r: Rotation) =>
  r.state !== 'draining' ? '' : r.old_sessions === null ? 'not told' : String(r.old_sessions);

/** The panel: the rotations under way, or a line saying there are none. */
export function RotationPanel({ rotations }: { rotations: RotationInProgress[] }) {
  return (
    <SectionCard id="rotations" title="Rotations" icon="key">
      {rotations.length === 0 ? (
        <EmptyState
          icon="empty"
          text="No rotation in progress: after a rotate, the old secret works here until the new one is live and its sessions end."
        />
      ) : (
        <DataTable
          rows={rotations}
          empty=""
          columns={[
            { label: 'Connection', cell: (r) => `${r.kind} ${r.name}` },
            {
              label: 'State',
              cell: (r) => (
                <Badge status={r.rotation.state} tone={r.rotation.state === 'draining' ? 'warn' : 'info'} />
              ),
            },
            { label: 'Started', cell: (r) => <When at={r.rotation.started_at} /> },
            { label: 'Old sessions', cell: (r) => sessionsOf(r.rotation) },
            { label: 'Old secret refused by', cell: (r) => <When at={r.rotation.retires_by} /> },
          ]}
        />
      )}
    </SectionCard>
  );
}
