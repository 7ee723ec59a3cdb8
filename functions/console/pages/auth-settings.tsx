/**
 * An auth app's Settings: enabled, allowed origins (with the specification's rules spelled out
 * when one is refused), the user limit, and a fieldset per registered sign-in provider built from
 * its module's fields, with the callback URL to register at the provider. Every rule is the
 * API's: the form only turns fields into a PATCH.
 */
import type { Child } from 'hono/jsx';
import type { SettingsField, SignInProvider } from '../../services/sign-in/providers/provider';
import { allProviders } from '../../services/sign-in/providers/registry';
import { CsrfField } from '../layout';
import type { AuthApp, ProviderView } from '../types';

/** The form's fields as posted (kept to show them again with a refusal). */
export type SettingsDraft = Record<string, string>;

/** The form field of a provider setting. */
const fieldName = (provider: SignInProvider, field: SettingsField) => `${provider.name}.${field.key}`;
const isSecret = (field: SettingsField) => field.type === 'secret' || field.type === 'pem';

/** The form fields that hold secrets (never shown again). */
export const secretFieldNames = (): string[] =>
  allProviders().flatMap((p) => p.fields.filter(isSecret).map((f) => fieldName(p, f)));

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
  };
  for (const provider of allProviders()) {
    const view = app.providers[provider.name];
    draft[`${provider.name}_enabled`] = view?.enabled ? 'on' : '';
    for (const field of provider.fields.filter((f) => !isSecret(f))) {
      const value = valueAt(view, field.key);
      draft[fieldName(provider, field)] = Array.isArray(value) ? value.join('\n') : String(value ?? '');
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
    if (field.type === 'list') {
      const items = raw
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean);
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
    allowed_origins: (f.allowed_origins ?? '')
      .split(/\r?\n/)
      .map((o) => o.trim())
      .filter(Boolean),
    user_limit: limit === '' ? null : Number(limit),
    providers,
  };
}

/** The specification's rules for allowed origins, shown beside a refused one. */
function OriginRules() {
  return (
    <ul class="hint" id="origin-rules">
      <li>
        A custom scheme is registered as <code>scheme://host</code>: scheme plus host, no path; a host is
        required (three slashes is invalid); a wildcard <code>*</code> never covers a custom scheme.
      </li>
      <li>
        A verified link is the https origin of the app's domain, which must host the platform association
        files.
      </li>
      <li>The schemes file, javascript, data, blob, about, vbscript and ftp are refused.</li>
    </ul>
  );
}

const Text = (p: { label: string; name: string; draft: SettingsDraft; type?: string; disabled: boolean }) => (
  <label>
    {p.label}
    <input
      type={p.type ?? 'text'}
      name={p.name}
      value={p.type === 'password' ? '' : (p.draft[p.name] ?? '')}
      disabled={p.disabled}
      autocomplete="off"
    />
  </label>
);

const Check = (p: { label: string; name: string; draft: SettingsDraft; disabled: boolean }) => (
  <label class="check">
    <input type="checkbox" name={p.name} checked={p.draft[p.name] === 'on'} disabled={p.disabled} />
    {p.label}
  </label>
);

const Area = (p: { label: string; name: string; value: string; disabled: boolean }) => (
  <label>
    {p.label}
    <textarea name={p.name} disabled={p.disabled} autocomplete="off">
      {p.value}
    </textarea>
  </label>
);

/** A value to register elsewhere, with a button that copies it (the script; selectable without). */
export const CopyValue = (p: { label: string; value: string }) => (
  <p class="copy-value">
    {p.label}: <code>{p.value}</code>{' '}
    <button type="button" data-copy={p.value} class="secondary">
      Copy {p.label}
    </button>
  </p>
);

/** One field of a provider's fieldset. */
function FieldInput(p: {
  provider: SignInProvider;
  field: SettingsField;
  draft: SettingsDraft;
  disabled: boolean;
}) {
  const name = fieldName(p.provider, p.field);
  if (p.field.type === 'list' || p.field.type === 'pem')
    return (
      <Area
        label={p.field.label}
        name={name}
        value={p.field.type === 'pem' ? '' : (p.draft[name] ?? '')}
        disabled={p.disabled}
      />
    );
  const type = p.field.type === 'secret' ? 'password' : 'text';
  return <Text label={p.field.label} name={name} type={type} draft={p.draft} disabled={p.disabled} />;
}

/** A provider's fieldset: enabled, its fields, whether its secret is set, and its callback URL. */
function ProviderFields(p: {
  app: AuthApp;
  provider: SignInProvider;
  draft: SettingsDraft;
  disabled: boolean;
  children?: Child;
}) {
  const { provider } = p;
  const view = p.app.providers[provider.name];
  const secret = provider.fields.find(isSecret);
  return (
    <fieldset>
      <legend>{provider.title}</legend>
      <Check
        label={`${provider.title} enabled`}
        name={`${provider.name}_enabled`}
        draft={p.draft}
        disabled={p.disabled}
      />
      {provider.fields.map((field) => (
        <FieldInput provider={provider} field={field} draft={p.draft} disabled={p.disabled} />
      ))}
      {secret && (
        <p class="hint">
          {view?.[`${secret.key}_set`] ? 'A secret is set; leave blank to keep it.' : 'No secret set.'}
        </p>
      )}
      {provider.browser && (
        <CopyValue
          label={`${provider.title} callback URL`}
          value={`${p.app.auth_url}/auth/${provider.name}/callback`}
        />
      )}
    </fieldset>
  );
}

export function SettingsSection(props: {
  app: AuthApp;
  action: string;
  csrf: string;
  writer: boolean;
  draft?: SettingsDraft;
  error?: { message: string; field?: string };
}) {
  const { app, writer } = props;
  const draft = props.draft ?? draftOf(app);
  const disabled = !writer;
  const originError = props.error?.field?.startsWith('allowed_origins') ? props.error : undefined;
  const otherError = props.error && !originError ? props.error : undefined;
  return (
    <section class="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      {otherError && (
        <p class="flash error" role="alert">
          {otherError.message}
        </p>
      )}
      <form method="post" action={props.action} class="stack">
        <CsrfField csrf={props.csrf} />
        <Check label="Enabled" name="enabled" draft={draft} disabled={disabled} />
        <label for="allowed-origins">Allowed origins</label>
        <textarea
          id="allowed-origins"
          name="allowed_origins"
          disabled={disabled}
          aria-describedby="origins-hint"
          aria-invalid={originError ? 'true' : undefined}
        >
          {draft.allowed_origins ?? ''}
        </textarea>
        <p class="hint" id="origins-hint">
          One per line: <code>myapp://auth</code> or <code>https://app.example.com</code>. Redirects must
          match one.
        </p>
        {originError && (
          <div role="alert">
            <p class="field-error">Refused: {originError.message}</p>
            <OriginRules />
          </div>
        )}
        <Text label="User limit" name="user_limit" draft={draft} disabled={disabled} />
        {allProviders().map((provider) => (
          <ProviderFields app={app} provider={provider} draft={draft} disabled={disabled} />
        ))}
        {writer && (
          <div>
            <button type="submit">Save settings</button>
          </div>
        )}
      </form>
    </section>
  );
}
