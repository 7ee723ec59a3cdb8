/**
 * The HTTP calls of the platform adapters: a timeout, no redirects followed, and a failure that
 * names the platform's own message (never a header or a body sent, which may carry a secret).
 */
import { TargetRefused, TargetUnreachable } from './target-adapter';

/** How long one platform call may take. */
const CALL_TIMEOUT_MS = 10_000;

/** A platform's answer: its status and its body parsed as JSON (undefined when it is not). */
export interface PlatformAnswer {
  status: number;
  body: unknown;
}

/** Sends one request (a JSON `body` or a multipart `form`); a network failure or timeout is TargetUnreachable naming `platform`. */
export async function call(
  platform: string,
  url: string,
  init: { method: string; authorization: string; body?: unknown; form?: FormData },
): Promise<PlatformAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method,
      // A form sets its own content type (multipart/form-data with its boundary).
      headers: {
        authorization: init.authorization,
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      redirect: 'manual',
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
  } catch (err) {
    throw new TargetUnreachable(`${platform} could not be reached: ${(err as Error).message}`);
  }
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, body };
}

/** Whether an answer is a success (2xx). */
export const ok = (answer: PlatformAnswer): boolean => answer.status >= 200 && answer.status < 300;

/** The longest part of a platform's own message a failure repeats (a short reason, never a body). */
const MESSAGE_CHARS = 160;

/**
 * The error for a failed answer: the platform's message (its first {@link MESSAGE_CHARS}
 * characters) with its status. 5xx, 429 and a redirect are TargetUnreachable (they may pass);
 * anything else TargetRefused.
 */
export function failure(platform: string, answer: PlatformAnswer, message: string | undefined): Error {
  const reason = message && message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS)}…` : message;
  const text = `${platform} answered ${answer.status}${reason ? `: ${reason}` : ''}`;
  const passing =
    answer.status >= 500 ||
    answer.status === 429 ||
    answer.status < 200 ||
    (answer.status >= 300 && answer.status < 400);
  return passing ? new TargetUnreachable(text) : new TargetRefused(text);
}

/** `value` as a path segment. */
export const seg = (value: string): string => encodeURIComponent(value);

/** Joins a base URL (with or without a trailing slash) and a path. */
export const at = (base: string, path: string): string => `${base.replace(/\/+$/, '')}${path}`;
