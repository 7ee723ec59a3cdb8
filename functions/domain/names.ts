/** Naming rules of services, sites and auth apps, and the variable form of a name. */
import { isUuid } from '../lib/ids';

/** Names of databases and buckets, and auth-app ids: 1 to 63 of a-z 0-9 - _, starting with a letter. */
export const SERVICE_NAME_RE = /^[a-z][a-z0-9_-]{0,62}$/;

/** Site and project slugs: 1 to 63 of a-z 0-9 -, starting with a letter or digit, not ending with -. */
export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Why a new slug or name shaped like a UUID is refused (docs/contract.md §9, Names): a path
 * segment shaped like one is read as an id, so the name could stand for another resource's.
 */
export const NOT_UUID_SHAPED = 'must not be shaped like a UUID (a path would read it as an id)';

/**
 * How a request names a site: by id (a uuid, the canonical form answers use) or by slug; null
 * when the text can be neither (such a site is never found). The one rule every site lookup uses.
 */
export type SiteRef = { id: string } | { slug: string } | null;

export function siteRef(idOrSlug: string): SiteRef {
  if (isUuid(idOrSlug)) return { id: idOrSlug.toLowerCase() };
  return SLUG_RE.test(idOrSlug) ? { slug: idOrSlug } : null;
}

/** The `<NAME>` of suffixed variables: upper-cased, every character not A-Z or 0-9 replaced by `_`. */
export function variableName(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** Turns a free-form name into a slug candidate (may be empty). */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}
