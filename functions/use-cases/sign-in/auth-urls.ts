/** The auth service's addresses (docs/contract.md §1, §15): `{auth_url}` and each app's issuer under it. */
import type { Config } from '../../config';

/** `{auth_url}` (docs/contract.md §1): the auth service's address, every app's routes under its `/v1/{appSlug}`. */
export const authUrlOf = (config: Config): string => config.PUBLIC_AUTH_URL.replace(/\/+$/, '');

/** The issuer of an app's access tokens, `{auth_url}/v1/{appSlug}`: where its routes live. */
export const issuerOf = (config: Config, slug: string): string => `${authUrlOf(config)}/v1/${slug}`;
