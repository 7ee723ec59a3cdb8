/** The Hono environment of console pages: the app's own, plus the signed-in session's API client. */
import type { Context } from 'hono';
import type { AppEnv } from '../app-env';
import type { ConsoleApi } from './console-api';
import type { Flash } from './flash';

/** What a signed-in console request carries (set by the session middleware). */
export interface ConsoleVariables {
  api?: ConsoleApi;
  /** The CSRF token every form of the page carries. */
  csrf?: string;
  session?: string;
  flash?: Flash;
}

export interface ConsoleEnv {
  Bindings: AppEnv['Bindings'];
  Variables: AppEnv['Variables'] & ConsoleVariables;
}

/** A console request's context. */
export type ConsoleContext = Context<ConsoleEnv>;

/** The signed-in request's API client, CSRF token and flash; only under the session middleware. */
export function signedIn(c: ConsoleContext): { api: ConsoleApi; csrf: string; flash?: Flash } {
  const api = c.get('api');
  const csrf = c.get('csrf');
  if (!api || !csrf) throw new Error('console page served without the session middleware');
  return { api, csrf, flash: c.get('flash') };
}
