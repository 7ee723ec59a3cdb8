/** What every form handler of the console does: read the form, maybe confirm first, call the API, report back. */
import { ApiFailure } from './console-api';
import type { ConsoleContext } from './console-env';
import { redirectWith } from './flash';

/** The posted form's text fields (the session middleware already checked origin and CSRF token). */
export async function formOf(c: ConsoleContext): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string' && name !== '_csrf') out[name] = value;
  }
  return out;
}

/** Whether the form still needs its confirmation (nothing changes before `Confirm`). */
export const unconfirmed = (form: Record<string, string>): boolean => form.confirm !== 'yes';

/**
 * Runs `change` and answers with a 303 back to `back`: its notice (if any) when it worked, the API's
 * reason when it was refused (a 401 still leads to the login page).
 */
export async function act(
  c: ConsoleContext,
  back: string,
  change: () => Promise<string>,
  formName?: string,
): Promise<Response> {
  try {
    const text = await change();
    return redirectWith(c, back, text ? { kind: 'notice', text } : undefined);
  } catch (err) {
    if (err instanceof ApiFailure && err.status !== 401 && err.status < 500) {
      return redirectWith(c, back, { kind: 'error', text: err.message, form: formName });
    }
    if (err instanceof ApiFailure && err.status === 503) {
      return redirectWith(c, back, {
        kind: 'error',
        text: `${err.message} Nothing changed; try again later.`,
      });
    }
    throw err;
  }
}

/** Path prefixes of a project's console pages. */
export const consolePath = {
  project: (p: string) => `/console/projects/${encodeURIComponent(p)}`,
  site: (p: string, siteId: string, tab = 'connections') =>
    `/console/projects/${encodeURIComponent(p)}/sites/${encodeURIComponent(siteId)}/${tab}`,
  service: (p: string, segment: string, id: string) =>
    `/console/projects/${encodeURIComponent(p)}/${segment}/${encodeURIComponent(id)}`,
  /** The page of a service of a kind a plugin registers (pages/plugin-services.tsx). */
  pluginService: (p: string, segment: string, id: string) =>
    `/console/projects/${encodeURIComponent(p)}/services/${segment}/${encodeURIComponent(id)}`,
};
