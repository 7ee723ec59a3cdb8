/**
 * How the console words things for people: times relative to now with the exact time on hover,
 * kinds and actions in words. Server-rendered, so a page reads the same without its script.
 */
import type { Kind } from '../domain/levels';
import { engines, kindOf } from '../kinds/registry';

/** The exact time, to the second, in UTC: what hovering a relative time shows. */
export function exactTime(at: string | Date): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const UNITS: [number, string][] = [
  [365 * 24 * 3600, 'year'],
  [30 * 24 * 3600, 'month'],
  [7 * 24 * 3600, 'week'],
  [24 * 3600, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
];

/** `just now`, `5 minutes ago`, `in 3 days`: `at` against `now`. */
export function relativeTime(at: string | Date, now: number = Date.now()): string {
  const t = new Date(at).getTime();
  if (Number.isNaN(t)) return String(at);
  const seconds = Math.round((t - now) / 1000);
  const size = Math.abs(seconds);
  if (size < 45) return 'just now';
  const [unit, name] = UNITS.find(([u]) => size >= u) ?? [60, 'minute'];
  const n = Math.max(1, Math.round(size / unit));
  const words = `${n} ${name}${n === 1 ? '' : 's'}`;
  return seconds < 0 ? `${words} ago` : `in ${words}`;
}

/** A time as people read it (relative), with the exact time on hover and in `datetime`. */
export const When = ({ at }: { at: string | Date | null | undefined }) => {
  if (!at) return <span>never</span>;
  // The API's own string where it gave one, so `datetime` is exactly the answer's value.
  const iso = typeof at === 'string' ? at : at.toISOString();
  return (
    <time datetime={iso} title={exactTime(iso)}>
      {relativeTime(iso)}
    </time>
  );
};

/**
 * A slug's `pattern` attribute: valid under the `v` flag browsers compile it with (a literal
 * `-` in a class is escaped), the same rule as the API's.
 */
export const SLUG_PATTERN = '[a-z0-9][a-z0-9\\-]{0,62}';

/** The link text of an auth app: its name, with its app id when they differ. */
export const authAppLabel = (a: { name: string | null; app_id: string }): string =>
  a.name && a.name !== a.app_id ? `${a.name} (${a.app_id})` : a.app_id;

/** How kind `kind` is named to people (its descriptor's word: `auth app`). */
export const kindWord = (kind: Kind): string => kindOf(kind).word;

/** A database engine as people name it (`postgresql` → `PostgreSQL`); an unknown name as it is. */
export const engineLabel = (name: string): string => engines().find((e) => e.name === name)?.label ?? name;

/**
 * What changing a connection of kind `kind` in level does beyond the level: asked before the
 * change (contract §8: a level change that ends open sessions asks first).
 */
export const levelChangeConsequence = (kind: Kind): string | undefined =>
  kindOf(kind).levelChangeConsequence ?? undefined;

/** What level `level` of kind `kind` lets the app do, in words (shown beside the level), from its descriptor. */
export const levelMeaning = (kind: Kind, level: string): string | undefined =>
  kindOf(kind).levels.find((l) => l.level === level)?.meaning;

/** The verb of each Activity action, as a sentence's start. */
const ACTION_WORDS: Record<string, string> = {
  'project.create': 'created the project',
  'member.invite': 'invited',
  'member.join': 'joined as',
  'member.role': 'changed the role of',
  'member.remove': 'removed',
  'invitation.revoke': 'revoked the invitation of',
  'site.create': 'created site',
  'site.delete': 'deleted site',
  'database.create': 'created database',
  'database.delete': 'deleted database',
  'database.stop': 'stopped database',
  'database.start': 'started database',
  'bucket.create': 'created bucket',
  'bucket.delete': 'deleted bucket',
  'auth_app.create': 'created auth app',
  'auth_app.update': 'changed the settings of auth app',
  'auth_app.delete': 'deleted auth app',
  'auth_app.rotate_server_key': 'rotated the server key of',
  'auth_app.rotate_signing_key': 'rotated the signing key of',
  'connection.create': 'connected',
  'connection.level': 'changed the level of',
  'connection.delete': 'disconnected',
  'connection.promote': 'gave the plain names to',
  'credential.rotate': 'rotated the credential of',
  'credential.repair': 'repaired the credential of',
  'credential.switch': 'gave its own credential to',
  'credential.drop': 'removed the unused credential',
  'principal.create': 'created principal',
  'principal.rotate': 'rotated principal',
  'principal.revoke': 'revoked principal',
  'principal.expire': 'removed expired principal',
  'env.set': 'set the variables of',
  'deploy.create': 'deployed',
  'deploy.rollback': 'rolled back',
  'target.set': 'set the delivery target of',
  'target.remove': 'removed the delivery target of',
  'delivery.retry': 'retried a delivery to',
  'api_key.create': 'created API key',
  'api_key.revoke': 'revoked API key',
  'auth_user.disable': 'disabled user',
  'auth_user.enable': 'enabled user',
  'auth_user.delete': 'deleted user',
};

/** An action in words (`connection.level` → `changed the level of`); an unknown one as it is. */
export const actionWords = (action: string): string => ACTION_WORDS[action] ?? action;

/** The resources the Activity filter offers (each covers all its verbs), with their words. */
export const ACTION_GROUPS: [string, string][] = [
  ['connection', 'Connections'],
  ['credential', 'Credentials'],
  ['env', 'Variables'],
  ['deploy', 'Deploys'],
  ['target', 'Delivery targets'],
  ['delivery', 'Deliveries'],
  ['site', 'Sites'],
  ['database', 'Databases'],
  ['bucket', 'Buckets'],
  ['auth_app', 'Auth apps'],
  ['auth_user', 'Auth app users'],
  ['principal', 'Principals'],
  ['api_key', 'API keys'],
  ['member', 'Members'],
  ['invitation', 'Invitations'],
  ['project', 'Project'],
];

/** Every action with words, for the filter's finer choices. */
export const KNOWN_ACTIONS = Object.keys(ACTION_WORDS);

/** The way in a change came by, in words. */
export const VIA_WORDS: Record<string, string> = {
  console: 'console',
  cli: 'CLI',
  api: 'API',
  system: 'automatic',
};
