/**
 * Settings pieces shared by providers that sign in with an OAuth client (Google, GitHub): the
 * client ID and its secret, their PATCH and view schemas, console fields and the merge rules
 * (a new provider needs `enabled` and `client_id`; enabling needs a secret).
 */
import { ApiError } from '../../../lib/errors';
import { z } from '../../../lib/openapi';
import type { SettingsField, StoredSettings } from './provider';

/** PATCH fields of an OAuth client provider. */
export const clientPatchFields = {
  enabled: z.boolean().optional(),
  client_id: z.string().trim().min(1).max(512).optional(),
  client_secret: z.string().min(1).max(1024).optional(),
};

/** View fields of an OAuth client provider. */
export const clientViewFields = {
  enabled: z.boolean(),
  client_id: z.string(),
  client_secret_set: z.boolean(),
};

/** The console fields of an OAuth client provider titled `title`. */
export const clientFields = (title: string): SettingsField[] => [
  { key: 'client_id', label: `${title} client ID`, type: 'text' },
  { key: 'client_secret', label: `${title} client secret`, type: 'secret' },
];

/** The 400 of a provider setting, naming its field. */
export function settingError(provider: string, field: string, message: string): ApiError {
  const path = `providers.${provider}.${field}`;
  return new ApiError('VALIDATION_FAILED', `${path}: ${message}`, path);
}

/** The stored settings all providers share. */
const Stored = z.looseObject({ enabled: z.boolean() });

/** `raw` as stored settings (what the app row holds), or undefined. */
export const storedOf = (raw: unknown): StoredSettings | undefined => {
  const parsed = Stored.safeParse(raw);
  return parsed.success ? (parsed.data as StoredSettings) : undefined;
};

/**
 * The merged enabled flag, client ID and secret of a PATCH: a field left out keeps its value, a
 * new provider needs `enabled` and `client_id`, and an enabled one needs a secret.
 */
export function mergeClient(
  provider: string,
  current: { enabled?: unknown; client_id?: unknown } | undefined,
  patch: { enabled?: boolean; client_id?: string; client_secret?: string },
  secret: string | undefined,
): { enabled: boolean; client_id: string; secret: string | undefined } {
  const enabled = patch.enabled ?? (typeof current?.enabled === 'boolean' ? current.enabled : undefined);
  const clientId =
    patch.client_id ?? (typeof current?.client_id === 'string' ? current.client_id : undefined);
  if (enabled === undefined) throw settingError(provider, 'enabled', `required to add ${provider}`);
  if (clientId === undefined) throw settingError(provider, 'client_id', `required to add ${provider}`);
  const nextSecret = patch.client_secret ?? secret;
  if (enabled && !nextSecret) throw settingError(provider, 'client_secret', `required to enable ${provider}`);
  return { enabled, client_id: clientId, secret: nextSecret };
}
