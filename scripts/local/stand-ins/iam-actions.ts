/**
 * The IAM Query API actions of the AWS stand-in (Version 2010-05-08): users, inline policies and
 * access keys, answering AWS's XML shapes and error codes.
 */
import { randomBytes } from 'node:crypto';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { indexKey, indexUser, pageUsers, unindexUser } from './iam-index';
import type { Throttle } from './throttle';

/** Account id of the stand-in. */
export const ACCOUNT = '123456789012';
/** XML namespace of IAM answers. */
export const IAM_NS = 'https://iam.amazonaws.com/doc/2010-05-08/';

/** One access key. */
export interface AccessKey {
  id: string;
  secret: string;
  createDate: string;
}
/** One IAM user. */
export interface IamUser {
  name: string;
  path: string;
  createDate: string;
  policies: Record<string, string>;
  keys: AccessKey[];
}
/** The users of the account. */
export interface IamState {
  users: Record<string, IamUser>;
  /**
   * The account's quota of users when it is not IAM's {@link USERS_PER_ACCOUNT} (a seeded local
   * stack holds more key users than one AWS account may: scripts/local/seed-dir.ts).
   */
  usersPerAccount?: number;
}

/** An error answered with an AWS code and HTTP status. */
export class AwsFault extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** One XML element with escaped text. */
export const el = (tag: string, value: string) => `<${tag}>${xmlEscape(value)}</${tag}>`;
/** A new access key id. */
export const keyId = () => `AKIA${randomBytes(10).toString('hex').toUpperCase().slice(0, 16)}`;

/** Whether key user `u` (null: the account's admin) may do `action` on `resource` from `sourceIp` at `now`, by its inline policies. */
export async function allowedBy(
  u: IamUser | null,
  action: string,
  resource: string,
  sourceIp: string,
  now: Date,
): Promise<boolean> {
  if (!u) return true;
  const result = await runSimulation(
    {
      identityPolicies: Object.entries(u.policies).map(([name, doc]) => ({ name, policy: JSON.parse(doc) })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        principal: `arn:aws:iam::${ACCOUNT}:user${u.path}${u.name}`,
        action,
        resource: { resource, accountId: ACCOUNT },
        // What AWS puts in every request's context: who is asking from where, and when.
        contextVariables: { 'aws:SourceIp': sourceIp, 'aws:CurrentTime': now.toISOString() },
      },
    },
    {},
  );
  return result.resultType !== 'error' && result.overallResult === 'Allowed';
}

/** IAM's quota of users an account may hold ("IAM and AWS STS quotas"; it cannot be raised). */
export const USERS_PER_ACCOUNT = 5000;

/** IAM's quota of access keys a user may hold ("IAM and AWS STS quotas"). */
export const ACCESS_KEYS_PER_USER = 2;

/** Gives `userName` one more access key (refused past the quota as CreateAccessKey is); returns its id. */
export function addAccessKey(state: IamState, userName: string, save: () => void): string {
  const u = state.users[userName];
  if (!u) throw new AwsFault(404, 'NoSuchEntity', `The user with name ${userName} cannot be found.`);
  if (u.keys.length >= ACCESS_KEYS_PER_USER)
    throw new AwsFault(
      409,
      'LimitExceeded',
      `Cannot exceed quota for AccessKeysPerUser: ${ACCESS_KEYS_PER_USER}`,
    );
  const key = {
    id: keyId(),
    secret: randomBytes(30).toString('base64'),
    createDate: new Date().toISOString(),
  };
  u.keys.push(key);
  indexKey(state.users, u, key.id);
  save();
  return key.id;
}

/** Adds users made outside Tether (path `/outside/`) until the account is at its quota (tests); returns that quota. */
export function fillUsersToQuota(state: IamState, save: () => void): number {
  const quota = state.usersPerAccount ?? USERS_PER_ACCOUNT;
  const createDate = new Date().toISOString();
  let count = Object.keys(state.users).length;
  for (let i = 0; count < quota; i++) {
    const name = `outside-${i}`;
    if (state.users[name]) continue;
    state.users[name] = { name, path: '/outside/', createDate, policies: {}, keys: [] };
    indexUser(state.users, state.users[name]);
    count++;
  }
  save();
  return quota;
}

/**
 * Runs one IAM action on `state`; returns the XML answer or throws an {@link AwsFault}. A request
 * past `throttle`'s rate is refused before it does anything, as IAM does: 400 `Throttling`.
 */
export function iamAction(
  state: IamState,
  params: URLSearchParams,
  save: () => void,
  throttle?: Throttle,
): string {
  if (throttle && throttle.take() > 0) throw new AwsFault(400, 'Throttling', 'Rate exceeded');
  const user = (name: string | null): IamUser => {
    const u = name ? state.users[name] : undefined;
    if (!u) throw new AwsFault(404, 'NoSuchEntity', `The user with name ${name} cannot be found.`);
    return u;
  };
  const action = params.get('Action') ?? '';
  if (params.get('Version') !== '2010-05-08') throw new AwsFault(400, 'InvalidParameterValue', 'bad Version');
  const name = params.get('UserName');
  let result = '';
  switch (action) {
    case 'CreateUser': {
      if (!name || !/^[\w+=,.@-]{1,64}$/.test(name))
        throw new AwsFault(400, 'ValidationError', 'bad UserName');
      if (state.users[name])
        throw new AwsFault(409, 'EntityAlreadyExists', `User with name ${name} already exists.`);
      const quota = state.usersPerAccount ?? USERS_PER_ACCOUNT;
      if (Object.keys(state.users).length >= quota)
        throw new AwsFault(409, 'LimitExceeded', `Cannot exceed quota for UsersPerAccount: ${quota}`);
      const path = params.get('Path') ?? '/';
      state.users[name] = { name, path, createDate: new Date().toISOString(), policies: {}, keys: [] };
      indexUser(state.users, state.users[name]);
      result = `<User>${el('Path', path)}${el('UserName', name)}${el('Arn', `arn:aws:iam::${ACCOUNT}:user${path}${name}`)}</User>`;
      break;
    }
    case 'PutUserPolicy': {
      const doc = params.get('PolicyDocument') ?? '';
      JSON.parse(doc);
      user(name).policies[params.get('PolicyName') ?? ''] = doc;
      break;
    }
    case 'DeleteUserPolicy': {
      const u = user(name);
      const policy = params.get('PolicyName') ?? '';
      if (!(policy in u.policies)) throw new AwsFault(404, 'NoSuchEntity', `policy ${policy} not found`);
      delete u.policies[policy];
      break;
    }
    case 'CreateAccessKey': {
      const u = user(name);
      const id = addAccessKey(state, u.name, () => undefined);
      const key = u.keys.find((k) => k.id === id) as AccessKey;
      result = `<AccessKey>${el('UserName', u.name)}${el('AccessKeyId', key.id)}${el('Status', 'Active')}${el('SecretAccessKey', key.secret)}${el('CreateDate', key.createDate)}</AccessKey>`;
      break;
    }
    case 'DeleteAccessKey': {
      const u = user(name);
      const id = params.get('AccessKeyId');
      if (!u.keys.some((k) => k.id === id))
        throw new AwsFault(404, 'NoSuchEntity', `access key ${id} not found`);
      u.keys = u.keys.filter((k) => k.id !== id);
      break;
    }
    case 'ListAccessKeys': {
      // At most two keys a user: one page always holds them all.
      const u = user(name);
      const members = u.keys.map(
        (k) =>
          `<member>${el('UserName', u.name)}${el('AccessKeyId', k.id)}${el('Status', 'Active')}${el('CreateDate', k.createDate)}</member>`,
      );
      result = `<AccessKeyMetadata>${members.join('')}</AccessKeyMetadata><IsTruncated>false</IsTruncated>`;
      return answer(action, result);
    }
    case 'DeleteUser': {
      const u = user(name);
      if (u.keys.length > 0 || Object.keys(u.policies).length > 0)
        throw new AwsFault(
          409,
          'DeleteConflict',
          'Cannot delete entity, must delete policies and keys first.',
        );
      delete state.users[u.name];
      unindexUser(state.users, u);
      break;
    }
    case 'ListUsers': {
      // IAM's paging: MaxItems 1 to 1000 (100 when absent), then IsTruncated and the Marker to ask again with.
      const max = Number(params.get('MaxItems') ?? '100');
      if (!Number.isInteger(max) || max < 1 || max > 1000)
        throw new AwsFault(400, 'ValidationError', 'MaxItems must be between 1 and 1000');
      const marker = params.get('Marker');
      const { page, next } = pageUsers(
        state.users,
        params.get('PathPrefix') ?? '/',
        marker ? Buffer.from(marker, 'base64url').toString() : null,
        max,
      );
      const members = page.map(
        (u) =>
          `<member>${el('Path', u.path)}${el('UserName', u.name)}${el('CreateDate', u.createDate)}</member>`,
      );
      const more = next
        ? `<IsTruncated>true</IsTruncated>${el('Marker', Buffer.from(next).toString('base64url'))}`
        : '<IsTruncated>false</IsTruncated>';
      return answer(action, `<Users>${members.join('')}</Users>${more}`);
    }
    default:
      throw new AwsFault(400, 'InvalidAction', `Could not find operation ${action}`);
  }
  // Only a change is written out: a listing must not cost the whole account's state.
  save();
  return answer(action, result);
}

/** An IAM answer around `result`. */
function answer(action: string, result: string): string {
  return `<${action}Response xmlns="${IAM_NS}"><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>${randomBytes(8).toString('hex')}</RequestId></ResponseMetadata></${action}Response>`;
}
