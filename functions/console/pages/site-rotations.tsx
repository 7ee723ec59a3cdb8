/**
 * The Delivery tab's rotation panel (docs/contract.md §14): each of the site's database and
 * bucket connections whose graceful rotation is still under way, with its state (`delivering`
 * until the new secret is live where the app runs, `draining` until the old login has no
 * session), the old login's open sessions and the deadline by which the old secret is refused.
 */
import { type ConsoleApi, path } from '../api';
import { Badge, EmptyState, SectionCard } from '../components';
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

/** The site's rotations under way: its connections, then each credential connection's rotation at once. */
export async function loadRotations(api: ConsoleApi, p: string, s: string): Promise<RotationInProgress[]> {
  const { connections } = await api.get<{
    connections: Array<{ kind: string; resource_id: string; resource_name: string }>;
  }>(path`/projects/${p}/sites/${s}/connections`);
  const read = await Promise.all(
    connections
      .filter((c) => c.kind === 'database' || c.kind === 'bucket')
      .map(async (c) => ({
        kind: c.kind,
        name: c.resource_name,
        rotation: await api.get<Rotation>(
          path`/projects/${p}/sites/${s}/connections/${c.kind}/${c.resource_id}/rotation`,
        ),
      })),
  );
  return read.filter((r) => r.rotation.state === 'delivering' || r.rotation.state === 'draining');
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
