/**
 * The IAM stand-in's indexes, so a listing or a signed request costs what it returns, not what
 * the account holds: users sorted by path and name (a `PathPrefix` is one contiguous run, a page
 * starts at its `Marker` by binary search) and access keys by id. Both are kept per users record
 * and rebuilt only when found stale (a state read from a file, or changed outside the actions).
 */
import type { IamUser } from './iam-actions';

/** Sort key of a user: its path, then its name (both IAM listings' order). */
const keyOf = (u: { path: string; name: string }) => `${u.path}\u0000${u.name}`;

interface Index {
  /** Sort keys of every user, ascending. */
  sorted: string[];
  /** Key id to user name. */
  keys: Map<string, string>;
}

const indexes = new WeakMap<Record<string, IamUser>, Index>();

function build(users: Record<string, IamUser>): Index {
  const list = Object.values(users);
  const index = {
    sorted: list.map(keyOf).sort(),
    keys: new Map(list.flatMap((u) => u.keys.map((k) => [k.id, u.name] as const))),
  };
  indexes.set(users, index);
  return index;
}

const indexOf = (users: Record<string, IamUser>): Index => indexes.get(users) ?? build(users);

/** First position in `sorted` whose key is above `key` (or at it, when `inclusive`). */
function seek(sorted: readonly string[], key: string, inclusive: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = sorted[mid] as string;
    if (k < key || (!inclusive && k === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Records a user the actions made. */
export function indexUser(users: Record<string, IamUser>, u: IamUser): void {
  const { sorted } = indexOf(users);
  const key = keyOf(u);
  const at = seek(sorted, key, true);
  if (sorted[at] !== key) sorted.splice(at, 0, key);
}

/** Forgets a user the actions deleted. */
export function unindexUser(users: Record<string, IamUser>, u: IamUser): void {
  const { sorted } = indexOf(users);
  const at = seek(sorted, keyOf(u), true);
  if (sorted[at] === keyOf(u)) sorted.splice(at, 1);
}

/** One page of the users whose path starts with `prefix`, after `marker`; `next` is the marker of the page after. */
export function pageUsers(
  users: Record<string, IamUser>,
  prefix: string,
  marker: string | null,
  max: number,
): { page: IamUser[]; next: string | null } {
  const page: IamUser[] = [];
  let index = indexOf(users);
  let at = marker ? seek(index.sorted, marker, false) : seek(index.sorted, prefix, true);
  while (page.length < max && at < index.sorted.length) {
    const key = index.sorted[at] as string;
    if (!key.startsWith(prefix)) break;
    const u = users[key.slice(key.indexOf('\u0000') + 1)];
    if (!u || keyOf(u) !== key) {
      // Changed outside the actions: rebuild and carry on after the last user returned.
      index = build(users);
      const last = page.at(-1);
      at = last
        ? seek(index.sorted, keyOf(last), false)
        : marker
          ? seek(index.sorted, marker, false)
          : seek(index.sorted, prefix, true);
      continue;
    }
    page.push(u);
    at += 1;
  }
  const more = at < index.sorted.length && (index.sorted[at] as string).startsWith(prefix);
  const last = page.at(-1);
  return { page, next: more && last ? keyOf(last) : null };
}

/** The user holding access key `id` (undefined: none). */
export function userOfKey(users: Record<string, IamUser>, id: string): IamUser | undefined {
  for (const index of [indexOf(users), null]) {
    const name = (index ?? build(users)).keys.get(id);
    const u = name ? users[name] : undefined;
    if (u?.keys.some((k) => k.id === id)) return u;
  }
  return undefined;
}

/** Records a key the actions gave `u`. */
export function indexKey(users: Record<string, IamUser>, u: IamUser, id: string): void {
  indexOf(users).keys.set(id, u.name);
}
