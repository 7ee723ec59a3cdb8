/** How console pages answer a failure: to the login page when signed out, else a page saying what went wrong. */
import type { ErrorHandler } from 'hono';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { log } from '../lib/logger';
import { ApiFailure } from './console-api';
import type { ConsoleContext, ConsoleEnv } from './console-env';
import { Layout } from './layout';
import { clearSessionCookie } from './security';
import { loginRedirect } from './session';

function ErrorPage({ title, text, csrf }: { title: string; text: string; csrf?: string }) {
  return (
    <Layout title={title} csrf={csrf}>
      <p>{text}</p>
      <p>
        <a href="/console">Back to your projects</a>
      </p>
    </Layout>
  );
}

type Status = 400 | 403 | 404 | 409 | 500 | 503;

function page(c: ConsoleContext, status: Status, title: string, text: string): Response {
  return c.html(<ErrorPage title={title} text={text} csrf={c.get('csrf')} />, status) as Response;
}

/** The console's error handler. */
export const consoleError: ErrorHandler<ConsoleEnv> = (err, c) => {
  if (err instanceof ApiFailure) {
    if (err.status === 401) {
      clearSessionCookie(c);
      return loginRedirect(c);
    }
    if (err.status === 404) return page(c, 404, 'Not found', `Nothing here: ${err.message}.`);
    if (err.status === 403) return page(c, 403, 'Not allowed', err.message);
    if (err.status === 503) return page(c, 503, 'Try again later', err.message);
    if (err.status < 500) return page(c, 400, 'Refused', err.message);
  }
  if (err instanceof ApiError && err.status === 403) return page(c, 403, 'Not allowed', err.message);
  const requestId = c.get('requestId') ?? newId();
  log.failure(`console request ${requestId} failed:`, err);
  return page(c, 500, 'Something went wrong', `The console could not show this page (request ${requestId}).`);
};

/** The console's 404 for a path no page serves. */
export const consoleNotFound = (c: ConsoleContext): Response =>
  page(c, 404, 'Not found', 'No console page lives at this address.');
