/**
 * The region a sign-in's one-time codes are kept in: chosen from where the request arrives
 * (Cloudflare's `request.cf`), named by the Durable Object location hint the region's object is
 * created with, so the browser callback that mints a code and the app's exchange that redeems
 * it (the same person, the same place) both reach an object near them.
 */

/** Durable Object location hints (Cloudflare's documented values). */
export const LOCATION_HINTS = ['wnam', 'enam', 'sam', 'weur', 'eeur', 'apac', 'oc', 'afr', 'me'] as const;

/** A location hint. */
export type Region = (typeof LOCATION_HINTS)[number];

/** What the region is chosen from: the parts of `request.cf` it reads. */
export interface RequestPlace {
  continent?: string;
  country?: string;
  longitude?: string | number;
}

/** Countries of the Middle East hint. */
const MIDDLE_EAST = new Set(['AE', 'BH', 'IL', 'IQ', 'IR', 'JO', 'KW', 'LB', 'OM', 'QA', 'SA', 'SY', 'YE']);

/** The region of a request from `place`; `fallback` when the place is unknown (a local run). */
export function regionOf(place: RequestPlace | undefined, fallback: Region = 'enam'): Region {
  if (!place?.continent) return fallback;
  if (place.country && MIDDLE_EAST.has(place.country)) return 'me';
  const longitude = Number(place.longitude);
  switch (place.continent) {
    case 'NA':
      return Number.isFinite(longitude) && longitude < -100 ? 'wnam' : 'enam';
    case 'SA':
      return 'sam';
    case 'EU':
      return Number.isFinite(longitude) && longitude > 20 ? 'eeur' : 'weur';
    case 'AS':
      return 'apac';
    case 'OC':
      return 'oc';
    case 'AF':
      return 'afr';
    default:
      return fallback;
  }
}

/**
 * The first character of a one-time code minted in each region, so the exchange knows which
 * object holds the code before it asks any. Every other character of a code is random.
 */
const REGION_MARKS: Record<Region, string> = {
  wnam: 'W',
  enam: 'E',
  sam: 'S',
  weur: 'U',
  eeur: 'R',
  apac: 'A',
  oc: 'O',
  afr: 'F',
  me: 'M',
};

const MARKED_REGIONS = new Map(
  Object.entries(REGION_MARKS).map(([region, mark]) => [mark, region as Region]),
);

/** `secret` (random) marked as minted in `region`: its first character replaced by the region's mark. */
export const markedFor = (region: Region, secret: string): string => REGION_MARKS[region] + secret.slice(1);

/** The region a code was minted in, from its mark; null for a code no region minted. */
export const regionOfCode = (code: string): Region | null => MARKED_REGIONS.get(code.charAt(0)) ?? null;

/** Whether `name` is a location hint (a region a home object names). */
export const isRegion = (name: string): name is Region =>
  (LOCATION_HINTS as readonly string[]).includes(name);
