/** The page /oauth/authorize shows without a `provider`: one link per enabled provider. */
import type { AuthAppRow } from '../../use-cases/sign-in/apps';
import { escapeHtml, page } from '../oauth/browser-problems';
import type { BrowserProvider } from '../oauth/browser-start';

/** The chooser: the same authorization request once per provider, with `provider` added. */
export function chooserPage(app: AuthAppRow, providers: BrowserProvider[], query: URLSearchParams): string {
  const links = providers
    .map((provider) => {
      const params = new URLSearchParams(query);
      params.set('provider', provider.name);
      return `<a class="choice" href="?${escapeHtml(params.toString())}">Continue with ${escapeHtml(provider.title)}</a>`;
    })
    .join('');
  const name = app.name ?? app.appId;
  return page(`Sign in to ${name}`, `<h1>Sign in to ${escapeHtml(name)}</h1>${links}`);
}
