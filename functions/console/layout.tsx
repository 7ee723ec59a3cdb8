/** The page shell every console page shares: header with breadcrumbs and `Sign out`, the flash, the main area. */
import type { Child } from 'hono/jsx';
import { ASSET_PATHS } from './assets';
import type { Flash } from './flash';
import { Icon } from './icons';
import { viewerEmail } from './viewer';

/** One step of the breadcrumb trail. */
export interface Crumb {
  href: string;
  label: string;
}

export interface LayoutProps {
  title: string;
  crumbs?: Crumb[];
  /** The CSRF token; absent on the sign-in page (no session, no `Sign out`). */
  csrf?: string;
  flash?: Flash;
  children?: Child;
}

/** The CSRF field every state-changing form carries. */
export const CsrfField = ({ csrf }: { csrf: string }) => <input type="hidden" name="_csrf" value={csrf} />;

/** The outcome of the last form, announced to screen readers. */
export function FlashMessage({ flash }: { flash?: Flash }) {
  if (!flash) return null;
  return flash.kind === 'error' ? (
    <p class="flash error" role="alert">
      <Icon name="alert" />
      <span>{flash.text}</span>
    </p>
  ) : (
    <p class="flash notice" role="status">
      <Icon name="ok" />
      <span>{flash.text}</span>
    </p>
  );
}

/** The signed-in person's corner of the header: their e-mail, their tokens and account, `Sign out`. */
function AccountBar({ csrf }: { csrf: string }) {
  const email = viewerEmail();
  return (
    <div class="account">
      {email && (
        <span class="who" title={email}>
          {email}
        </span>
      )}
      <a href="/console/tokens" title="Tokens">
        <Icon name="key" />
        <span class="nav-label">Tokens</span>
      </a>
      <a href="/console/account" title={email ? `Account (${email})` : 'Account'}>
        <Icon name="user" />
        <span class="nav-label">Account</span>
      </a>
      <form method="post" action="/console/logout" class="signout">
        <CsrfField csrf={csrf} />
        <button type="submit" class="ghost" title="Sign out">
          <Icon name="signout" />
          <span class="nav-label">Sign out</span>
        </button>
      </form>
    </div>
  );
}

export function Layout({ title, crumbs = [], csrf, flash, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Tether console`}</title>
        <link rel="stylesheet" href={ASSET_PATHS.css} />
        <script src={ASSET_PATHS.js} defer />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/console">
            <Icon name="layers" />
            Tether
          </a>
          {crumbs.length > 0 && (
            <nav aria-label="Breadcrumb">
              <ol class="crumbs">
                {crumbs.map((crumb) => (
                  <li>
                    <a href={crumb.href} title={crumb.label}>
                      {crumb.label}
                    </a>
                  </li>
                ))}
              </ol>
            </nav>
          )}
          {csrf && <AccountBar csrf={csrf} />}
        </header>
        <main>
          <h1 title={title}>{title}</h1>
          <FlashMessage flash={flash} />
          {children}
        </main>
      </body>
    </html>
  );
}

/** A form whose change needs a confirmation first: a dialog with the script, a confirmation page without. */
export function ConfirmForm(props: {
  action: string;
  csrf: string;
  label: string;
  /** What the dialog asks. */
  question: string;
  fields?: Record<string, string>;
  /** An accessible name other than the button's text (e.g. naming the row). */
  ariaLabel?: string;
  danger?: boolean;
  /** A checkbox the confirmation offers: ticked, the form also sends `name=yes`. */
  option?: ConfirmOption;
}) {
  return (
    <form
      method="post"
      action={props.action}
      data-confirm={props.question}
      data-confirm-option={props.option?.label}
      data-confirm-option-name={props.option?.name}
      class="inline"
    >
      <CsrfField csrf={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button
        type="submit"
        class={props.danger === false ? 'secondary' : 'danger'}
        aria-label={props.ariaLabel}
      >
        {props.label}
      </button>
    </form>
  );
}

/** A checkbox a confirmation offers (a cascading revoke): its field `name` is sent as `yes` when ticked. */
export interface ConfirmOption {
  name: string;
  label: string;
}

/** The confirmation page a dangerous form leads to without the script: nothing has changed yet. */
export function ConfirmPage(props: {
  title: string;
  question: string;
  action: string;
  fields: Record<string, string>;
  back: string;
  csrf: string;
  crumbs?: Crumb[];
  option?: ConfirmOption;
}) {
  const back = new URL(props.back, 'http://console.invalid');
  return (
    <Layout title={props.title} crumbs={props.crumbs} csrf={props.csrf}>
      <section role="dialog" aria-modal="true" aria-labelledby="confirm-title" class="dialog">
        <h2 id="confirm-title">{props.question}</h2>
        <p>Nothing changes until you confirm.</p>
        <div class="actions">
          <form method="post" action={props.action}>
            <CsrfField csrf={props.csrf} />
            {Object.entries(props.fields).map(([name, value]) => (
              <input type="hidden" name={name} value={value} />
            ))}
            <input type="hidden" name="confirm" value="yes" />
            {props.option && (
              <label class="check">
                <input type="checkbox" name={props.option.name} value="yes" /> {props.option.label}
              </label>
            )}
            <button type="submit" class="danger">
              Confirm
            </button>
          </form>
          <form method="get" action={back.pathname}>
            {[...back.searchParams].map(([name, value]) => (
              <input type="hidden" name={name} value={value} />
            ))}
            <button type="submit" class="secondary">
              Cancel
            </button>
          </form>
        </div>
      </section>
    </Layout>
  );
}

/** A card of a page: a section titled `title`, its heading (`<id>-heading`) naming it for screen readers. */
export function Card(props: { id: string; title: Child; children?: Child }) {
  return (
    <section class="card" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {props.children}
    </section>
  );
}
