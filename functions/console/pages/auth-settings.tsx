/**
 * An auth app's Settings: enabled, allowed origins (with the specification's rules spelled out
 * when one is refused), Google and GitHub with their client IDs, secrets and Google's native
 * client IDs, and the user limit. Every rule is the API's: the form only turns fields into a PATCH.
 */
import type { Child } from 'hono/jsx';
import { CsrfField } from '../layout';
import type { AuthApp } from '../types';

/** The form's fields as posted (kept to show them again with a refusal). */
export type SettingsDraft = Record<string, string>;

/** Fields of the form, from the app as it is. */
export function draftOf(app: AuthApp): SettingsDraft {
  const g = app.providers.google;
  const h = app.providers.github;
  return {
    enabled: app.enabled ? 'on' : '',
    allowed_origins: app.allowed_origins.join('\n'),
    user_limit: app.user_limit === null ? '' : String(app.user_limit),
    google_enabled: g?.enabled ? 'on' : '',
    google_client_id: g?.client_id ?? '',
    google_ios: g?.native_client_ids?.ios ?? '',
    google_android: g?.native_client_ids?.android ?? '',
    github_enabled: h?.enabled ? 'on' : '',
    github_client_id: h?.client_id ?? '',
  };
}

/** The PATCH body of a posted form: a provider with no client ID is removed, a blank secret is kept. */
export function patchOf(app: AuthApp, f: SettingsDraft): Record<string, unknown> {
  const limit = (f.user_limit ?? '').trim();
  const providers: Record<string, unknown> = {};
  const google = (f.google_client_id ?? '').trim();
  if (google) {
    providers.google = {
      enabled: f.google_enabled === 'on',
      client_id: google,
      ...(f.google_client_secret ? { client_secret: f.google_client_secret } : {}),
      native_client_ids: { ios: f.google_ios?.trim() || null, android: f.google_android?.trim() || null },
    };
  } else if (app.providers.google) providers.google = null;
  const github = (f.github_client_id ?? '').trim();
  if (github) {
    providers.github = {
      enabled: f.github_enabled === 'on',
      client_id: github,
      ...(f.github_client_secret ? { client_secret: f.github_client_secret } : {}),
    };
  } else if (app.providers.github) providers.github = null;
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

/** A provider's fieldset: enabled, client ID and secret (never shown, only whether one is set). */
const ProviderFields = (p: {
  title: string;
  name: 'google' | 'github';
  secretSet: boolean | undefined;
  draft: SettingsDraft;
  disabled: boolean;
  children?: Child;
}) => (
  <fieldset>
    <legend>{p.title}</legend>
    <Check label={`${p.title} enabled`} name={`${p.name}_enabled`} draft={p.draft} disabled={p.disabled} />
    <Text label={`${p.title} client ID`} name={`${p.name}_client_id`} draft={p.draft} disabled={p.disabled} />
    <Text
      label={`${p.title} client secret`}
      name={`${p.name}_client_secret`}
      type="password"
      draft={p.draft}
      disabled={p.disabled}
    />
    <p class="hint">{p.secretSet ? 'A secret is set; leave blank to keep it.' : 'No secret set.'}</p>
    {p.children}
  </fieldset>
);

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
        <ProviderFields
          title="Google"
          name="google"
          secretSet={app.providers.google?.client_secret_set}
          draft={draft}
          disabled={disabled}
        >
          <Text label="Native client ID (iOS)" name="google_ios" draft={draft} disabled={disabled} />
          <Text label="Native client ID (Android)" name="google_android" draft={draft} disabled={disabled} />
        </ProviderFields>
        <ProviderFields
          title="GitHub"
          name="github"
          secretSet={app.providers.github?.client_secret_set}
          draft={draft}
          disabled={disabled}
        />
        {writer && (
          <div>
            <button type="submit">Save settings</button>
          </div>
        )}
      </form>
    </section>
  );
}
