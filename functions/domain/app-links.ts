/**
 * Verified links (universal links, Android App Links) as redirect origins: the app IDs an auth
 * app names, and what the domain's association files must say about them. Pure: the files are
 * fetched elsewhere (use-cases/sign-in/association-check.ts).
 */

/** The mobile apps of an auth app whose verified links may carry a sign-in back. */
export interface AppLinks {
  /** Apple app IDs: `<Team ID>.<bundle ID>`. */
  ios_app_ids: string[];
  /** Android application IDs (package names). */
  android_package_names: string[];
}

/** No mobile apps named. */
export const NO_APP_LINKS: AppLinks = { ios_app_ids: [], android_package_names: [] };

/** Whether two sets of app links name the same apps (order aside). */
export function sameAppLinks(a: AppLinks, b: AppLinks): boolean {
  const key = (l: AppLinks) =>
    JSON.stringify([[...l.ios_app_ids].sort(), [...l.android_package_names].sort()]);
  return key(a) === key(b);
}

/** An Apple app ID: a ten-character Team ID, a dot, a bundle ID. */
export const IOS_APP_ID_RE = /^[A-Z0-9]{10}\.[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/;

/** An Android package name: two or more dot-separated Java identifiers. */
export const ANDROID_PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

/** The association file of each platform, under the origin. */
export const ASSOCIATION_FILES = {
  ios: '/.well-known/apple-app-site-association',
  android: '/.well-known/assetlinks.json',
} as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s) => typeof s === 'string') : []);

/** The app IDs an apple-app-site-association file lets open links: `applinks.details[].appIDs` (or the older `appID`). */
export function aasaAppIds(doc: unknown): string[] {
  const details = isObject(doc) && isObject(doc.applinks) ? doc.applinks.details : undefined;
  if (!Array.isArray(details)) return [];
  return details.filter(isObject).flatMap((d) => [...strings(d.appIDs), ...strings([d.appID])]);
}

/** The Android packages an assetlinks.json file lets handle all its URLs. */
export function assetlinksPackages(doc: unknown): string[] {
  if (!Array.isArray(doc)) return [];
  return doc
    .filter(isObject)
    .filter((s) => strings(s.relation).includes('delegate_permission/common.handle_all_urls'))
    .map((s) =>
      isObject(s.target) && s.target.namespace === 'android_app' ? s.target.package_name : undefined,
    )
    .filter((name): name is string => typeof name === 'string');
}

/**
 * What a platform's file fails to say for `ids` (undefined when it lists one of them): the
 * sentence a 400 gives, naming the file and the IDs it should list.
 */
export function missingFromFile(
  platform: keyof typeof ASSOCIATION_FILES,
  url: string,
  doc: unknown,
  ids: readonly string[],
): string | undefined {
  const listed = platform === 'ios' ? aasaAppIds(doc) : assetlinksPackages(doc);
  if (ids.some((id) => listed.includes(id))) return undefined;
  const where =
    platform === 'ios'
      ? 'in applinks.details[].appIDs'
      : 'as a delegate_permission/common.handle_all_urls statement for android_app';
  return `${url} does not list ${ids.join(' or ')} ${where}`;
}
