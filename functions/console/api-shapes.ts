/**
 * The shapes of the management API's answers and requests as the console reads and sends them:
 * the schemas of the types generated from the OpenAPI document (types/api.d.ts,
 * `npm run api:types`), under the names the pages use, as the CLI's (scripts/cli/lib/types.mjs).
 */
import type { components } from '../../types/api';
import { isKind, isLevelOf, type Kind, type LevelOf } from '../domain/levels';
import { kindOf } from '../kinds/registry';
import { ApiFailure } from './console-api';

export type { Kind };

type Schemas = components['schemas'];
export type Project = Schemas['Project'];
export type Site = Schemas['Site'];
/** A database; `engine` is a registered engine's name (functions/kinds/engines.ts), which a test may add to. */
export type Database = Omit<Schemas['Database'], 'engine'> & { engine: string };
export type Bucket = Schemas['Bucket'];
/** A provider's settings as the auth app object shows them (its module's view). */
export type ProviderView = { enabled: boolean } & Record<string, unknown>;
/** An auth app; its providers are the registry's (use-cases/sign-in/providers), which a test may add to. */
export type AuthApp = Omit<Schemas['AuthApp'], 'providers'> & {
  providers: Record<string, ProviderView | undefined>;
};
export type Connection = Schemas['Connection'];
export type Available = Schemas['AvailableConnection'];
export type Deploy = Schemas['Deploy'];
export type Principal = Schemas['DatabasePrincipal'] | Schemas['BucketPrincipal'];
export type ApiKey = Schemas['RestrictedKey'];
/** An auth app's signing keys (GET …/signing-keys). */
export type SigningKeys = Schemas['AuthAppSigningKeys'];
/** A site's level on a service, as a service's access listing shows it. */
export type AccessSite =
  | Schemas['DatabaseAccessSite']
  | Schemas['BucketAccessSite']
  | Schemas['AuthAppAccessSite'];
/** A service's access listing: a database's and a bucket's have principals, an auth app's its keys. */
export interface AccessListing {
  sites: AccessSite[];
  principals?: Principal[];
  api_keys?: ApiKey[];
}
export type AuthUser = Schemas['AuthAppUser'] & { last_sign_in_at?: string | null };

/** A connect or level change: a service and, when given, a level of the service's own kind. */
export type ConnectRequest = { [K in Kind]: { kind: K; resource_id: string; level?: LevelOf<K> } }[Kind];

/**
 * The request a form names (kind, service, level), typed for its kind; 400 when the kind or the
 * level is not one the API has (a form the console did not draw), nothing sent.
 */
export function connectRequest(kind: string, resourceId: string, level?: string): ConnectRequest {
  if (isKind(kind)) {
    if (!level) return { kind, resource_id: resourceId } as ConnectRequest;
    if (isLevelOf(kind, level)) return { kind, resource_id: resourceId, level } as ConnectRequest;
  }
  throw new ApiFailure(400, 'VALIDATION_FAILED', 'choose a service and one of its levels', 'level');
}

export { kindOfSegment, kindSegment } from '../kinds/registry';

/** A level of `kind` from a form, typed for it; 400 (nothing sent) when it is not one of the kind's. */
export function levelOf<K extends Kind>(kind: K, level: string | undefined): LevelOf<K> {
  if (level && isLevelOf(kind, level)) return level;
  throw new ApiFailure(
    400,
    'VALIDATION_FAILED',
    `level must be one of the ${kindOf(kind).word}'s levels`,
    'level',
  );
}
