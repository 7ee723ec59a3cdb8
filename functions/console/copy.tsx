/**
 * Values people copy elsewhere: a `Copy …` button beside every secret and URL (contract §8; the
 * script puts the value on the clipboard, the value stays selectable without it), the labelled
 * list a secret page shows, and the connection-string widget of a database.
 */
import { When } from './format';

/**
 * A button named `Copy <label>` (or `name`, when given) that puts `value` on the clipboard;
 * `compact` shows only `Copy` (the start of its name) where a row already says what it copies.
 */
export const CopyButton = (p: { label: string; value: string; name?: string; compact?: boolean }) => {
  const name = p.name ?? `Copy ${p.label}`;
  return (
    <button type="button" class="copy" data-copy={p.value} aria-label={p.compact ? name : undefined}>
      {p.compact ? 'Copy' : name}
    </button>
  );
};

/**
 * The Copy button name of each of `names` beside `others` (such as `Copy all`): `Copy NAME`,
 * unless another button's name is part of it (`Copy DATABASE_URL` of `Copy DATABASE_URL_MAIN`),
 * then `Copy value of NAME`, so a lookup by either name finds exactly one button.
 */
export function copyNames(names: readonly string[], others: readonly string[] = []): Map<string, string> {
  const plain = names.map((n) => `Copy ${n}`);
  const all = [...plain, ...others].map((l) => l.toLowerCase());
  return new Map(
    names.map((n, i) => {
      const mine = (plain[i] as string).toLowerCase();
      const clash = all.some((other) => other !== mine && mine.includes(other));
      return [n, clash ? `Copy value of ${n}` : `Copy ${n}`];
    }),
  );
}

/** How each field of an API answer is named to people. */
const LABELS: Record<string, string> = {
  username: 'User',
  password: 'Password',
  url: 'URL inside the cluster',
  external_url: 'Direct URL',
  pooled_url: 'Pooled URL',
  access_key_id: 'Access key ID',
  secret_access_key: 'Secret access key',
  name: 'Name',
  level: 'Level',
  email: 'E-mail',
  role: 'Role',
  link: 'Invitation link',
  created_at: 'Created',
  expires_at: 'Expires',
  bucket: 'Bucket',
  region: 'Region',
  endpoint: 'Endpoint',
  state: 'State',
};

/** A field's label: its own, else its key in words (`some_key` → `Some key`). */
export const labelOf = (key: string): string =>
  LABELS[key] ?? `${key.charAt(0).toUpperCase()}${key.slice(1).replace(/_/g, ' ')}`;

const TIME = /(_at|_until)$/;
const PLAIN = new Set(['name', 'level', 'role', 'state', 'region', 'email']);

/** An API answer's plain values as a labelled list: times relative, each secret or URL with its Copy button. */
export function ValueList({
  values,
  omit = [],
}: {
  values: Record<string, unknown>;
  omit?: readonly string[];
}) {
  const shown = Object.entries(values).filter(
    ([k, v]) => (typeof v === 'string' || typeof v === 'number') && k !== 'id' && !omit.includes(k),
  );
  return (
    <dl class="values">
      {shown.map(([key, raw]) => {
        const value = String(raw);
        return (
          <>
            <dt data-key={key}>{labelOf(key)}</dt>
            <dd>
              {TIME.test(key) ? (
                <When at={value} />
              ) : PLAIN.has(key) ? (
                <span>{value}</span>
              ) : (
                <>
                  <code class="secret">{value}</code>
                  <CopyButton label={labelOf(key)} value={value} />
                </>
              )}
            </dd>
          </>
        );
      })}
    </dl>
  );
}

/** The URL variants a database's credential answer carries, in the order the widget offers them. */
const VARIANTS = [
  [
    'pooled',
    'pooled_url',
    'Pooled',
    'through the connection pooler: for serverless and many short connections',
  ],
  ['direct', 'external_url', 'Direct', 'straight to the database: for migrations and long sessions'],
  ['internal', 'url', 'Inside the cluster', 'for apps running next to the database'],
] as const;

/**
 * The connection-string widget (a database's credential): the user, then one URL chosen as
 * pooled, direct or inside the cluster, each with its Copy button. The choice is radio buttons
 * that CSS follows, so it works without the script.
 */
/** The fields the connection-string widget shows (a list beside it leaves them out). */
export const CONNECTION_STRING_FIELDS = ['username', ...VARIANTS.map(([, key]) => key)];

export function ConnectionString({ values }: { values: Record<string, unknown> }) {
  const offered = VARIANTS.filter(([, key]) => typeof values[key] === 'string');
  if (offered.length === 0) return null;
  return (
    <section class="conn-string" aria-labelledby="conn-string-heading">
      <h3 id="conn-string-heading">Connection string</h3>
      {typeof values.username === 'string' && (
        <p class="copy-value">
          User <code>{values.username}</code> <CopyButton label="user" value={values.username} />
        </p>
      )}
      <fieldset>
        <legend>Connect</legend>
        <div class="choice">
          {offered.map(([variant, , label], i) => (
            <label class="check">
              <input type="radio" name="conn-variant" value={variant} checked={i === 0} />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      {offered.map(([variant, key, label, hint]) => (
        <div class={`url ${variant}`}>
          <p class="hint">
            {label}: {hint}
          </p>
          <p class="copy-value">
            <code class="secret">{String(values[key])}</code>
            <CopyButton label={`${label.toLowerCase()} URL`} value={String(values[key])} />
          </p>
        </div>
      ))}
    </section>
  );
}
