/**
 * The association-file check of verified-link origins: an https origin added to an auth app that
 * names mobile apps must serve the files that let those apps open its links
 * (`/.well-known/apple-app-site-association` for iOS app IDs, `/.well-known/assetlinks.json` for
 * Android packages), or the PATCH is refused with 400 saying which file lacks what. Fetched
 * before anything is written; ASSOCIATION_FILES_URL sends the fetches elsewhere (tests).
 */
import type { Config } from '../../config';
import { type AppLinks, ASSOCIATION_FILES, missingFromFile } from '../../domain/app-links';
import { ApiError } from '../../lib/errors';

/** Apple's CDN reads at most 128 KB of the file; neither platform follows a redirect. */
const MAX_FILE_BYTES = 128 * 1024;
const TIMEOUT_MS = 5000;

/** Where the file of `path` under `origin` is fetched from: the origin itself, or ASSOCIATION_FILES_URL/<host>. */
function fetchUrl(config: Config, origin: string, path: string): string {
  const base = config.ASSOCIATION_FILES_URL;
  return base ? `${base.replace(/\/$/, '')}/${new URL(origin).host}${path}` : `${origin}${path}`;
}

/** The JSON of a file, or the sentence that says why it cannot be read. */
async function readFile(config: Config, origin: string, path: string): Promise<{ doc: unknown } | string> {
  const shown = `${origin}${path}`;
  let res: Response;
  try {
    res = await fetch(fetchUrl(config, origin, path), {
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
  } catch {
    return `${shown} could not be fetched (no answer within ${TIMEOUT_MS / 1000} s)`;
  }
  if (res.status >= 300 && res.status < 400) return `${shown} redirects; it must be served directly`;
  if (res.status !== 200) return `${shown} answered ${res.status}; it must be served with 200`;
  const text = await res.text();
  if (text.length > MAX_FILE_BYTES) return `${shown} is larger than 128 KB`;
  try {
    return { doc: JSON.parse(text) };
  } catch {
    return `${shown} is not JSON`;
  }
}

/**
 * Checks every https origin of `added` (each with its index in allowed_origins) against the
 * files of the platforms `links` names; throws VALIDATION_FAILED naming the first origin that
 * fails. Origins of an app that names no mobile app are web origins: nothing to check.
 */
export async function checkAssociationFiles(
  config: Config,
  added: ReadonlyArray<{ origin: string; index: number }>,
  links: AppLinks,
): Promise<void> {
  const platforms = [
    ['ios', links.ios_app_ids],
    ['android', links.android_package_names],
  ] as const;
  const checks = added
    .filter(({ origin }) => origin.startsWith('https://'))
    .flatMap(({ origin, index }) =>
      platforms
        .filter(([, ids]) => ids.length > 0)
        .map(async ([platform, ids]) => {
          const path = ASSOCIATION_FILES[platform];
          const read = await readFile(config, origin, path);
          const problem =
            typeof read === 'string' ? read : missingFromFile(platform, `${origin}${path}`, read.doc, ids);
          return problem ? { index, problem } : undefined;
        }),
    );
  const failed = (await Promise.all(checks)).find((c) => c !== undefined);
  if (failed) {
    const field = `allowed_origins[${failed.index}]`;
    throw new ApiError('VALIDATION_FAILED', `${field}: ${failed.problem}`, field);
  }
}
