/** The shapes of the management API's answers, as the console reads them (contract §3-5, §7). */
import type { Kind } from '../domain/levels';
import type { Role } from '../domain/roles';

export type { Kind };

export interface Project {
  id: string;
  slug: string;
  name: string;
  created_at: string;
  role?: Role;
}
export interface Site {
  id: string;
  slug: string;
  created_at: string;
}
export interface Database {
  id: string;
  name: string;
  /** A registered engine's name (functions/kinds/registry.ts). */
  engine: string;
  replica_set: boolean;
  status: 'running' | 'stopped';
  created_at: string;
}
export interface Bucket {
  id: string;
  name: string;
  region: string;
  created_at: string;
}
/** A provider's settings as the auth app object shows them (its module's view). */
export type ProviderView = { enabled: boolean } & Record<string, unknown>;
export interface AuthApp {
  id: string;
  app_id: string;
  name: string | null;
  enabled: boolean;
  allowed_origins: string[];
  user_limit: number | null;
  require_issued_nonce?: boolean;
  /** The mobile apps whose verified links may be redirect origins. */
  app_links?: { ios_app_ids: string[]; android_package_names: string[] };
  providers: Record<string, ProviderView | undefined>;
  auth_url: string;
  created_at: string;
}
/** A connection as the API lists it: the object the API answers with (services/connections/model.ts). */
export type { ConnectionObject as Connection } from '../services/connections/model';
export interface Available {
  kind: Kind;
  resource_id: string;
  resource_name: string;
  levels: string[];
  env_names: string[];
}
export interface Deploy {
  id: string;
  rollback_of?: string | null;
  created_at: string;
  env_names: string[];
}
export interface Principal {
  id: string;
  name: string;
  level: string;
  allowed_sources: string[];
  expires_at: string | null;
  expired?: boolean;
  created_at: string;
  username?: string;
  access_key_id?: string;
}
export interface ApiKey {
  id: string;
  name: string;
  capabilities: { storage?: boolean; databases?: boolean; auth?: string[] };
  managed?: boolean;
  site_id?: string | null;
  created_at?: string;
}
export interface AccessListing {
  sites: { site_id: string; site_slug: string; level: string | null }[];
  principals?: Principal[];
  api_keys?: ApiKey[];
}
export interface AuthUser {
  id: string;
  email: string;
  disabled: boolean;
  email_verified?: boolean;
  providers?: string[];
  created_at?: string;
  name?: string | null;
  /** When the user last signed in; null if never (the users listing only). */
  last_sign_in_at?: string | null;
}

/** How a kind is named to people. */
export const KIND_LABEL: Record<Kind, string> = {
  database: 'database',
  bucket: 'bucket',
  auth_app: 'auth app',
};

/** The console path segment of each kind. */
export const KIND_SEGMENT: Record<Kind, string> = {
  database: 'databases',
  bucket: 'buckets',
  auth_app: 'auth-apps',
};
