/**
 * An auth app's Settings form as data: the fields of the app as it is (what the form shows) and
 * the PATCH a posted form becomes. Every rule stays the API's; this only maps fields.
 */
import type { SettingsField, SignInProvider } from '../../use-cases/sign-in/providers/provider';
import { allProviders } from '../../use-cases/sign-in/providers/provider-registry';
import type { AuthApp, ProviderView } from '../api-shapes';

/** The form's fields as posted (kept to show them again with a refusal). */
export type SettingsDraft = Record<string, string>;

/** The form field of a provider setting. */
export const fieldName = (provider: SignInProvider, field: SettingsField) => `${provider.name}.${field.key}`;
export const isSecret = (field: SettingsField) => field.type === 'secret' || field.type === 'pem';

/** The form fields that hold secrets (never shown again). */
export const secretFieldNames = (): string[] =>
  allProviders().flatMap((p) => p.fields.filter(isSecret).map((f) => fieldName(p, f)));

/** The form fields of `app_links`. */
export const IOS_FIELD = 'app_links.ios_app_ids';
export const ANDROID_FIELD = 'app_links.android_package_names';

/** A textarea's lines, trimmed, blank ones left out. */
const lines = (text: string | undefined): string[] =>
  (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

function valueAt(view: ProviderView | undefined, key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], view);
}

function setAt(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  const last = parts.pop() as string;
  let at = target;
  for (const part of parts) {
    at[part] ??= {};
    at = at[part] as Record<string, unknown>;
  }
  at[last] = value;
}

/** Fields of the form, from the app as it is. */
export function draftOf(app: AuthApp): SettingsDraft {
  const draft: SettingsDraft = {
    enabled: app.enabled ? 'on' : '',
    allowed_origins: app.allowed_origins.join('\n'),
    user_limit: app.user_limit === null ? '' : String(app.user_limit),
    require_issued_nonce: app.require_issued_nonce ? 'on' : '',
    [IOS_FIELD]: (app.app_links?.ios_app_ids ?? []).join('\n'),
    [ANDROID_FIELD]: (app.app_links?.android_package_names ?? []).join('\n'),
  };
  for (const provider of allProviders()) {
    const view = app.providers[provider.name];
    draft[`${provider.name}_enabled`] = view?.enabled ? 'on' : '';
    for (const field of provider.fields.filter((f) => !isSecret(f))) {
      const value = valueAt(view, field.key);
      draft[fieldName(provider, field)] =
        field.type === 'flag'
          ? value === true
            ? 'on'
            : ''
          : Array.isArray(value)
            ? value.join('\n')
            : String(value ?? '');
    }
  }
  return draft;
}

/** A provider's PATCH from the form; null removes it (nothing filled in), undefined leaves it. */
function providerPatch(provider: SignInProvider, app: AuthApp, f: SettingsDraft) {
  const patch: Record<string, unknown> = { enabled: f[`${provider.name}_enabled`] === 'on' };
  let filled = false;
  for (const field of provider.fields) {
    const raw = f[fieldName(provider, field)] ?? '';
    if (field.type === 'flag') {
      setAt(patch, field.key, raw === 'on');
    } else if (field.type === 'list') {
      const items = lines(raw);
      filled ||= items.length > 0;
      setAt(patch, field.key, items);
    } else if (isSecret(field)) {
      // A blank secret keeps the one stored.
      if (raw.trim()) setAt(patch, field.key, field.type === 'pem' ? raw : raw.trim());
    } else if (raw.trim()) {
      filled = true;
      setAt(patch, field.key, raw.trim());
    } else if (field.clearable) setAt(patch, field.key, null);
  }
  if (filled) return patch;
  return app.providers[provider.name] ? null : undefined;
}

/** The PATCH body of a posted form: a provider with nothing filled in is removed, a blank secret is kept. */
export function patchOf(app: AuthApp, f: SettingsDraft): Record<string, unknown> {
  const limit = (f.user_limit ?? '').trim();
  const providers: Record<string, unknown> = {};
  for (const provider of allProviders()) {
    const patch = providerPatch(provider, app, f);
    if (patch !== undefined) providers[provider.name] = patch;
  }
  return {
    enabled: f.enabled === 'on',
    allowed_origins: lines(f.allowed_origins),
    user_limit: limit === '' ? null : Number(limit),
    require_issued_nonce: f.require_issued_nonce === 'on',
    // Only when the form carried the fields, so a form without them never clears the apps.
    ...(IOS_FIELD in f || ANDROID_FIELD in f
      ? { app_links: { ios_app_ids: lines(f[IOS_FIELD]), android_package_names: lines(f[ANDROID_FIELD]) } }
      : {}),
    providers,
  };
}
