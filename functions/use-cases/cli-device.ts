/**
 * `tether login --device` (RFC 8628): the CLI starts a grant and shows a user code; a signed-in
 * person types it on /console/device and approves or denies; the CLI's polls are answered
 * `authorization_pending`, `slow_down`, `access_denied` or `expired_token` until the approved
 * grant gives a personal token. The grants live in one OneTimeCodes object (device-grants.ts),
 * which also counts the clients' starts and polls and the wrong codes people type.
 */
import {
  DEVICE_CODE_TTL_SECONDS,
  DEVICE_POLL_INTERVAL_SECONDS,
  formatUserCode,
  normaliseUserCode,
  USER_CODE_TRIES,
  userCodeFrom,
} from '../domain/cli-login-rules';
import { sha256Hex } from '../lib/crypto';
import { ApiError } from '../lib/errors';
import { randomToken } from '../lib/ids';
import type { RateDecision } from '../objects/fixed-window';
import type { RequestContext } from '../request-context';
import {
  CLI_LIMITS,
  CLI_WINDOW_MS,
  type CliLogin,
  type GrantRefusal,
  issueCliToken,
  limited,
} from './cli-login';

const DEVICE_SCOPE = 'cli-device';

/** The device authorization response (RFC 8628, 3.2). */
export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

const userHashOf = (normalised: string) => sha256Hex(`user-code:${normalised}`);

/** Starts a device grant for the machine `name`; a refusal when the client started too many. */
export async function startDeviceLogin(
  ctx: Pick<RequestContext, 'codes' | 'config'>,
  { client, ip, name }: { client: string; ip: string | null; name: string },
): Promise<DeviceAuthorization | GrantRefusal> {
  const scope = ctx.codes.scope(DEVICE_SCOPE);
  const deviceCode = randomToken();
  const deviceHash = await sha256Hex(deviceCode);
  // A drawn user code that a live grant holds is drawn again; one in 10^7 even with 2,500 live.
  for (let attempt = 0; attempt < 5; attempt++) {
    const userCode = userCodeFrom((n) => crypto.getRandomValues(new Uint8Array(n)));
    const { started, decision } = await scope.startDeviceGrant(
      {
        deviceHash,
        userHash: await userHashOf(userCode),
        name,
        ttlMs: DEVICE_CODE_TTL_SECONDS * 1000,
        intervalS: DEVICE_POLL_INTERVAL_SECONDS,
        ip: ip?.slice(0, 64) ?? null,
      },
      attempt === 0 ? [{ key: `start:${client}`, limit: CLI_LIMITS.deviceStarts }] : [],
      CLI_WINDOW_MS,
    );
    if (!decision.allowed) return limited(decision);
    if (!started) continue;
    const page = `${ctx.config.PUBLIC_BASE_URL.replace(/\/$/, '')}/console/device`;
    const shown = formatUserCode(userCode);
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: page,
      verification_uri_complete: `${page}?user_code=${shown}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    };
  }
  throw new ApiError('SERVICE_UNAVAILABLE', 'could not draw a free user code; try again');
}

/** The hash a typed user code is kept under, and the tries it counts against (the person's and the client's). */
async function typedCode(accountId: string, client: string, typed: string) {
  const normalised = normaliseUserCode(typed);
  // A code that cannot be one still counts as a try, so malformed guesses are no cheaper.
  const userHash = await userHashOf(normalised ?? `invalid:${typed.slice(0, 64)}`);
  const tries = [
    { key: `tries:account:${accountId}`, limit: USER_CODE_TRIES },
    { key: `tries:client:${client}`, limit: USER_CODE_TRIES },
  ];
  return { userHash, tries };
}

/** The refusal of a typed code that names no pending grant: 429 once the tries are spent, else 404. */
function missingGrant(outcome: { decision: RateDecision } | { limited: RateDecision }): ApiError {
  if ('limited' in outcome) {
    return new ApiError(
      'TOO_MANY_REQUESTS',
      `too many wrong codes; try again in ${Math.ceil(outcome.limited.retryAfter / 60)} minutes`,
    );
  }
  if (!outcome.decision.allowed) {
    return new ApiError('TOO_MANY_REQUESTS', 'too many wrong codes; wait before trying again');
  }
  return new ApiError(
    'NOT_FOUND',
    'no sign-in is waiting for that code: check it against your terminal (it expires after 10 minutes)',
    'user_code',
  );
}

/**
 * A signed-in person's decision on a typed user code: approve for `accountId` (through dashboard
 * session `sessionId`, recorded as the token's parent) or deny. 404 for a code that names no
 * pending grant (counted: ten wrong ones per person and per client in 15 minutes), then 429
 * until the window resets, whatever is typed.
 */
export async function decideDeviceLogin(
  ctx: Pick<RequestContext, 'codes'>,
  input: { accountId: string; sessionId: string; client: string; typed: string; approve: boolean },
): Promise<{ name: string }> {
  const { accountId, sessionId, client, typed, approve } = input;
  const { userHash, tries } = await typedCode(accountId, client, typed);
  const outcome = await ctx.codes
    .scope(DEVICE_SCOPE)
    .decideDeviceGrant(userHash, approve ? accountId : null, tries, CLI_WINDOW_MS, sessionId);
  if (outcome.found) return { name: outcome.name };
  throw missingGrant(outcome);
}

/** The machine asking: the name it gave, the address it started from, and when (RFC 8628 §5.4). */
export interface AskingDevice {
  name: string;
  ip: string | null;
  started_at: string | null;
}

/**
 * The device a typed user code belongs to, for the person to check before deciding; counted
 * like a decision (404, then 429), so looking codes up guesses no faster.
 */
export async function describeDeviceLogin(
  ctx: Pick<RequestContext, 'codes'>,
  input: { accountId: string; client: string; typed: string },
): Promise<AskingDevice> {
  const { userHash, tries } = await typedCode(input.accountId, input.client, input.typed);
  const outcome = await ctx.codes.scope(DEVICE_SCOPE).peekDeviceGrant(userHash, tries, CLI_WINDOW_MS);
  if (!outcome.found) throw missingGrant(outcome);
  return {
    name: outcome.name,
    ip: outcome.ip,
    started_at: outcome.startedAt === null ? null : new Date(outcome.startedAt).toISOString(),
  };
}

/** One poll of the CLI: the token once approved, else the RFC 8628 error to answer. */
export async function pollDeviceLogin(
  ctx: RequestContext,
  { client, ip, deviceCode }: { client: string; ip: string | undefined; deviceCode: string },
): Promise<CliLogin | GrantRefusal> {
  const poll = await ctx.codes
    .scope(DEVICE_SCOPE)
    .pollDeviceGrant(
      await sha256Hex(deviceCode),
      [{ key: `poll:${client}`, limit: CLI_LIMITS.devicePolls }],
      CLI_WINDOW_MS,
    );
  switch (poll.status) {
    case 'limited':
      return limited(poll.decision);
    case 'expired':
      return { error: 'expired_token', description: 'the device code expired or is unknown; log in again' };
    case 'pending':
      return { error: 'authorization_pending', description: 'waiting for the code to be entered' };
    case 'slow_down':
      return {
        error: 'slow_down',
        description: `polling too fast; wait ${poll.interval} seconds between polls`,
      };
    case 'denied':
      return { error: 'access_denied', description: 'the sign-in was denied in the browser' };
    case 'approved':
      return issueCliToken(ctx, {
        accountId: poll.accountId,
        name: poll.name,
        ip,
        flow: 'device',
        mintedBy: poll.sessionId ?? null,
      });
  }
}
