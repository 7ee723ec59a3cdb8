/**
 * The design system's components (docs/console.md): status badges, empty states, truncated
 * values, stat cards and the danger zone. Their look is the stylesheet's (styles/console.css);
 * markup elsewhere gets it by the same class names.
 */
import type { Child } from 'hono/jsx';
import { Icon, type IconName } from './icons';

/** A badge's tone: ok (green), warn (amber), bad (red), info (blue), neutral (grey). */
export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'neutral';

/** The tone of every status word the console shows; an unknown word is neutral. */
const TONES: Record<string, Tone> = {
  running: 'ok',
  live: 'ok',
  delivered: 'ok',
  enabled: 'ok',
  active: 'ok',
  member: 'ok',
  ready: 'ok',
  connected: 'ok',
  set: 'ok',
  pending: 'warn',
  draining: 'warn',
  delivering: 'info',
  retiring: 'warn',
  provisioning: 'warn',
  starting: 'warn',
  stopping: 'warn',
  invited: 'warn',
  expiring: 'warn',
  failed: 'bad',
  dead: 'bad',
  error: 'bad',
  expired: 'bad',
  revoked: 'neutral',
  stopped: 'neutral',
  disabled: 'neutral',
  'not connected': 'neutral',
  'read-only': 'info',
  managed: 'info',
  owner: 'info',
  admin: 'info',
};

/** The tone of a status word. */
export const toneOf = (status: string): Tone => TONES[status.toLowerCase()] ?? 'neutral';

/** A status as a coloured badge that never wraps; `tone` overrides the status word's own. */
export const Badge = (p: { status: string; tone?: Tone; title?: string; children?: Child }) => (
  <span class="badge" data-tone={p.tone ?? toneOf(p.status)} title={p.title}>
    {p.children ?? p.status}
  </span>
);

/** What is missing, in words, and the next action (a link or a form). */
export const EmptyState = (p: { icon?: IconName; text: Child; children?: Child }) => (
  <div class="empty">
    <Icon name={p.icon ?? 'empty'} />
    <p>{p.text}</p>
    {p.children}
  </div>
);

/** A value that may be long (an e-mail, a URL, names): one line, cut with an ellipsis, whole on hover. */
export const Truncate = (p: { text: string; mono?: boolean }) =>
  p.mono ? (
    <code class="cell-truncate" title={p.text}>
      {p.text}
    </code>
  ) : (
    <span class="cell-truncate" title={p.text}>
      {p.text}
    </span>
  );

/** A card whose heading carries an icon and, on the right, its actions. */
export function SectionCard(p: {
  id: string;
  title: string;
  icon?: IconName;
  actions?: Child;
  class?: string;
  children?: Child;
}) {
  return (
    <section class={p.class ? `card ${p.class}` : 'card'} aria-labelledby={`${p.id}-heading`}>
      <div class="card-head">
        <h2 id={`${p.id}-heading`}>
          {p.icon && <Icon name={p.icon} />}
          {p.title}
        </h2>
        {p.actions}
      </div>
      {p.children}
    </section>
  );
}

/** The danger zone: a red-edged card listing destructive actions, each with what it ends. */
export const DangerZone = (p: { id?: string; children?: Child }) => (
  <SectionCard id={p.id ?? 'danger'} title="Danger zone" icon="warning" class="danger-zone">
    {p.children}
  </SectionCard>
);

/** One destructive action of the danger zone: what it does, and its (confirmed) button. */
export const DangerRow = (p: { title: string; text: Child; children?: Child }) => (
  <div class="danger-row">
    <div>
      <p>
        <strong>{p.title}</strong>
      </p>
      <p class="hint">{p.text}</p>
    </div>
    {p.children}
  </div>
);

/** Variable names as chips that wrap between names, never inside one (a long one is cut, whole on hover). */
export const Names = (p: { names: readonly string[] }) => (
  <span class="names-list">
    {p.names.map((n) => (
      <code title={n}>{n}</code>
    ))}
  </span>
);

/** A variable name that may wrap after its underscores (never elsewhere), so a long one stays whole on a phone. */
export const VariableName = (p: { name: string }) => (
  <code class="var-name">
    {p.name.split(/(?<=_)/).map((part) => (
      <>
        {part}
        <wbr />
      </>
    ))}
  </code>
);
