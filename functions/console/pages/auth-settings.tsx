/**
 * An auth app's Settings, in sections each with its own Save: General (enabled, allowed origins
 * with the rules (docs/auth-service.md) spelled out when one is refused, the user limit, nonces), the
 * mobile apps of verified links, and a section per registered sign-in provider built from its
 * module's fields (shown only while the provider is on, by the stylesheet, so without script
 * too), with the callback URL to register at the provider. Every rule is the API's: the form
 * only turns fields into a PATCH.
 */
import type { SettingsField, SignInProvider } from '../../use-cases/sign-in/providers/provider';
import { allProviders } from '../../use-cases/sign-in/providers/provider-registry';
import type { AuthApp } from '../api-shapes';
import { SectionCard } from '../components';
import { CsrfField } from '../layout';
import {
  ANDROID_FIELD,
  draftOf,
  fieldName,
  IOS_FIELD,
  isSecret,
  type SettingsDraft,
} from './auth-settings-form';

/** The rules for allowed origins (docs/auth-service.md), shown beside a refused one. */
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
  if (p.field.type === 'flag')
    return <Check label={p.field.label} name={name} draft={p.draft} disabled={p.disabled} />;
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

/** A provider's section: enabled, then (only while enabled, or once configured) its fields, its secret's state and its callback URL. */
function ProviderFields(p: {
  app: AuthApp;
  provider: SignInProvider;
  draft: SettingsDraft;
  disabled: boolean;
  writer: boolean;
}) {
  const { provider } = p;
  const view = p.app.providers[provider.name];
  const secret = provider.fields.find(isSecret);
  return (
    <SectionCard
      id={`provider-${provider.name}`}
      title={provider.title}
      icon="auth"
      class={view ? 'provider configured' : 'provider'}
    >
      <div class="provider-toggle">
        <Check
          label={`${provider.title} enabled`}
          name={`${provider.name}_enabled`}
          draft={p.draft}
          disabled={p.disabled}
        />
      </div>
      <div class="provider-fields">
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
            value={`${p.app.issuer}/auth/${provider.name}/callback`}
          />
        )}
      </div>
      <p class="hint provider-off">Turn it on to fill in its settings.</p>
      {p.writer && <SaveButton label={`Save ${provider.title}`} section={provider.name} />}
    </SectionCard>
  );
}

/** A section's own Save (the form is one, so a Save keeps what other sections hold too). */
const SaveButton = (p: { label: string; section: string }) => (
  <div class="section-save">
    <button type="submit" name="section" value={p.section}>
      {p.label}
    </button>
  </div>
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
    <form method="post" action={props.action} class="settings" aria-labelledby="settings-heading">
      <h2 id="settings-heading" class="section-title">
        Settings
      </h2>
      {otherError && (
        <p class="flash error" role="alert">
          {otherError.message}
        </p>
      )}
      <CsrfField csrf={props.csrf} />
      <SectionCard id="general" title="General" icon="settings">
        <div class="fields">
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
          <Check
            label="Accept only ID tokens bound to a nonce Tether issued"
            name="require_issued_nonce"
            draft={draft}
            disabled={disabled}
          />
          <p class="hint">
            Apps get a nonce from <code>POST {app.issuer}/oauth/nonce</code> (valid 10 minutes, single use). A
            token carrying a nonce is always checked against the request's; this setting also refuses tokens
            with none.
          </p>
        </div>
        {writer && <SaveButton label="Save settings" section="general" />}
      </SectionCard>
      <SectionCard id="mobile-apps" title="Mobile apps (verified links)" icon="link">
        <div class="fields" aria-describedby="app-links-hint">
          <Area label="iOS app IDs" name={IOS_FIELD} value={draft[IOS_FIELD] ?? ''} disabled={disabled} />
          <Area
            label="Android package names"
            name={ANDROID_FIELD}
            value={draft[ANDROID_FIELD] ?? ''}
            disabled={disabled}
          />
          <p class="hint" id="app-links-hint">
            One per line: an iOS app ID is <code>TEAMID1234.com.example.app</code> (Team ID, a dot, the bundle
            ID); an Android package is <code>com.example.app</code>. With these named, every https origin
            above must serve <code>/.well-known/apple-app-site-association</code> and{' '}
            <code>/.well-known/assetlinks.json</code> listing them, checked on each save that adds an origin
            or changes these.
          </p>
        </div>
        {writer && <SaveButton label="Save mobile apps" section="mobile-apps" />}
      </SectionCard>
      {allProviders().map((provider) => (
        <ProviderFields app={app} provider={provider} draft={draft} disabled={disabled} writer={writer} />
      ))}
    </form>
  );
}
