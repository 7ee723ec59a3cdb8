/**
 * The server's side of a SCRAM-SHA-256 login (RFC 5802, RFC 7677) as MongoDB runs it in
 * saslStart and saslContinue: 15,000 iterations, the salt random per login here since the
 * stand-in keeps the password itself rather than a stored verifier. An unknown user gets the
 * same first answer as a known one, so a login reveals nothing until the proof fails.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { scramKeys } from '../../../db/scram';

/** MongoDB's iteration count for SCRAM-SHA-256. */
const ITERATIONS = 15_000;

/** One login under way: what saslStart learnt, for saslContinue. */
export interface ScramConversation {
  username: string;
  clientFirstBare: string;
  serverFirst: string;
  /** The password the user may log in with from this source, or undefined (refused at the proof). */
  password: string | undefined;
  salt: Buffer;
  done: boolean;
}

/** Parses `n,,n=<user>,r=<nonce>` (no channel binding) and answers `r=<nonce+ours>,s=<salt>,i=<n>`. */
export function scramStart(
  clientFirst: string,
  passwordFor: (username: string) => string | undefined,
): ScramConversation | null {
  const m = /^n,(?:a=[^,]*)?,(n=([^,]*),r=([\x21-\x2b\x2d-\x7e]+)(?:,.*)?)$/.exec(clientFirst);
  if (!m) return null;
  const [, clientFirstBare = '', rawUser = '', clientNonce = ''] = m;
  const username = rawUser.replace(/=2C/g, ',').replace(/=3D/g, '=');
  const salt = randomBytes(16);
  const nonce = `${clientNonce}${randomBytes(18).toString('base64')}`;
  return {
    username,
    clientFirstBare,
    serverFirst: `r=${nonce},s=${salt.toString('base64')},i=${ITERATIONS}`,
    password: passwordFor(username),
    salt,
    done: false,
  };
}

/** Checks `c=biws,r=<nonce>,p=<proof>`; returns `v=<server signature>` or null when the proof is wrong. */
export async function scramFinish(
  conversation: ScramConversation,
  clientFinal: string,
): Promise<string | null> {
  const m = /^(c=([^,]*),r=([^,]*)),p=([A-Za-z0-9+/=]+)$/.exec(clientFinal);
  const nonce = /^r=([^,]*)/.exec(conversation.serverFirst)?.[1];
  // `biws` is base64 of `n,,`: no channel binding, as the first message said.
  if (!m) return null;
  if (m[2] !== 'biws' || m[3] !== nonce || conversation.password === undefined) return null;
  const withoutProof = m[1] ?? '';
  const proof = Buffer.from(m[4] ?? '', 'base64');
  const authMessage = `${conversation.clientFirstBare},${conversation.serverFirst},${withoutProof}`;
  const keys = await scramKeys(conversation.password, conversation.salt, ITERATIONS);
  const storedKey = Buffer.from(keys.storedKey);
  const clientSignature = createHmac('sha256', storedKey).update(authMessage).digest();
  if (proof.length !== clientSignature.length) return null;
  const clientKey = Buffer.from(proof.map((byte, i) => byte ^ (clientSignature[i] ?? 0)));
  if (!timingSafeEqual(createHash('sha256').update(clientKey).digest(), storedKey)) return null;
  conversation.done = true;
  return `v=${createHmac('sha256', Buffer.from(keys.serverKey)).update(authMessage).digest('base64')}`;
}
