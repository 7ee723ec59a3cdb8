/**
 * Names of the variables a site is handed for its connections (functions/domain/variables.test.ts pins
 * each kind's).
 *
 * Decision (contract §9, documented in the README): one connection of a family at a time holds
 * its unsuffixed names: the first made while none holds them. Disconnecting it unsets them;
 * they never move to another live connection by themselves (a running app's DATABASE_URL never
 * starts pointing at another database), only `promote` moves them. Families are per variable
 * set, so a PostgreSQL and a MongoDB database each hold their own plain names.
 */
import { variableName } from './names';

/** The variable family of a service (its name): the set of names it is handed. */
export type Family = string;

/** A database engine's name (`postgresql`, `mongodb`, or one a kind descriptor registers). */
export type Engine = string;

/**
 * The names one family hands: its plain (unsuffixed) names and, for a service named `n`
 * (already in variable form), its suffixed ones. `mirrors` lists the plain name each suffixed
 * one carries the value of, in order (the plain names when absent).
 */
export interface VariableFamily {
  name: Family;
  plain: readonly string[];
  suffixed(n: string): string[];
  mirrors?: readonly string[];
}

const FAMILIES = new Map<Family, VariableFamily>();

/** Makes a family known to the naming rules (kinds/ registers its engines' families); returns how to take it back out. */
export function registerFamily(family: VariableFamily): () => void {
  FAMILIES.set(family.name, family);
  return () => {
    if (FAMILIES.get(family.name) === family) FAMILIES.delete(family.name);
  };
}

/** A family no registered kind hands (a service gone meanwhile) holds no names. */
const familyNamed = (name: Family): VariableFamily =>
  FAMILIES.get(name) ?? { name, plain: [], suffixed: () => [] };

/** The platform's managed key, handed to a site whose connections imply a capability. */
export const MANAGED_KEY_NAME = 'PLATFORM_API_KEY';

/** Whether `name` is a plain (unsuffixed) name of some family: what a connection holding its family's plain names has. */
export const isPlainName = (name: string): boolean =>
  [...FAMILIES.values()].some((f) => f.plain.includes(name));

/** The unsuffixed names of a family, held by the site's first service of that family. */
export const plainNames = (family: Family): readonly string[] => familyNamed(family).plain;

/** The suffixed names every service of the family holds, for service name `name`. */
export const suffixedNames = (family: Family, name: string): string[] =>
  familyNamed(family).suffixed(variableName(name));

/**
 * Pairs each name a service of `family` holds with the plain name it mirrors, so values can
 * be computed once per service: `[name, plainName]`.
 */
export function namesWithRoles(family: Family, name: string, holdsPlain: boolean): Array<[string, string]> {
  const f = familyNamed(family);
  const roles = f.mirrors ?? f.plain;
  const out: Array<[string, string]> = suffixedNames(family, name).map((s, i) => [s, roles[i] as string]);
  return holdsPlain ? [...f.plain.map((p): [string, string] => [p, p]), ...out] : out;
}

/** What the naming rules need to know of one of a site's connections. */
export interface NamedConnection {
  /** Stable identity of the connection, e.g. `database:<resource id>`. */
  key: string;
  family: Family;
  /** The service's name (an auth app's app_id). */
  name: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Tie-breaker for equal created_at. */
  id: string;
  /** Whether it holds its family's plain names (stored; see the module's decision). */
  holdsPlain: boolean;
}

const byAge = (a: NamedConnection, b: NamedConnection): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The keys of the connections holding their family's unsuffixed names (one per family at most). */
export function plainHolders(conns: readonly NamedConnection[]): Set<string> {
  const seen = new Set<Family>();
  const out = new Set<string>();
  for (const c of [...conns].sort(byAge)) {
    if (!c.holdsPlain || seen.has(c.family)) continue;
    seen.add(c.family);
    out.add(c.key);
  }
  return out;
}

/** The families whose plain names some connection holds. */
export const heldFamilies = (conns: readonly NamedConnection[]): Set<Family> =>
  new Set(conns.filter((c) => c.holdsPlain).map((c) => c.family));

/**
 * Every injected name of the site and the connection that owns it. Oldest connections claim
 * first, so a name two services would both produce stays with the earlier one.
 */
export function nameOwners(conns: readonly NamedConnection[]): Map<string, string> {
  const holders = plainHolders(conns);
  const owners = new Map<string, string>();
  for (const c of [...conns].sort(byAge)) {
    for (const [n] of namesWithRoles(c.family, c.name, holders.has(c.key))) {
      if (!owners.has(n)) owners.set(n, c.key);
    }
  }
  return owners;
}

/** The env_names of each connection of a site, in the order its variable set lists them. */
export function connectionEnvNames(conns: readonly NamedConnection[]): Map<string, string[]> {
  const holders = plainHolders(conns);
  const owners = nameOwners(conns);
  const out = new Map<string, string[]>();
  for (const c of conns) {
    const names = namesWithRoles(c.family, c.name, holders.has(c.key)).map(([n]) => n);
    out.set(
      c.key,
      names.filter((n) => owners.get(n) === c.key),
    );
  }
  return out;
}

/**
 * For a site holding `conns`: a function telling what connecting a service (family and name)
 * would add. The site's names are worked out once, however many services are asked about.
 */
export function availableEnvNamesOf(
  conns: readonly NamedConnection[],
): (family: Family, name: string) => string[] {
  const owners = nameOwners(conns);
  const held = heldFamilies(conns);
  return (family, name) =>
    namesWithRoles(family, name, !held.has(family))
      .map(([n]) => n)
      .filter((n) => !owners.has(n));
}

/** What connecting a service (family and name) would add to a site holding `conns`. */
export function availableEnvNames(conns: readonly NamedConnection[], family: Family, name: string): string[] {
  return availableEnvNamesOf(conns)(family, name);
}

/**
 * The names a live patch must carry when a site's connections go from `before` to `after`:
 * names whose owner changed or whose owner is in `touched` (new level, new secret) are set,
 * names no longer injected are unset.
 */
export function patchNames(
  before: readonly NamedConnection[],
  after: readonly NamedConnection[],
  touched: ReadonlySet<string>,
): { set: string[]; unset: string[] } {
  const was = nameOwners(before);
  const now = nameOwners(after);
  const set: string[] = [];
  for (const [n, owner] of now) {
    if (was.get(n) !== owner || touched.has(owner)) set.push(n);
  }
  const unset = [...was.keys()].filter((n) => !now.has(n));
  return { set: set.sort(), unset: unset.sort() };
}
