/**
 * The first message a PostgreSQL client sends (protocol 3.x, "Start-up" in the PostgreSQL
 * documentation's Message Flow chapter). The tunnel reads it to learn which database a
 * connection asks for before anything reaches the cluster. Pure: bytes in, a verdict out.
 */

/** PostgreSQL refuses longer start-up packets too (MAX_STARTUP_PACKET_LENGTH). */
export const MAX_STARTUP_LENGTH = 10_000;

const SSL_REQUEST = 80877103;
const GSS_ENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/** What the first bytes of a client's stream are. */
export type StartupPacket =
  | { type: 'incomplete' }
  | { type: 'invalid'; reason: string }
  /** SSLRequest or GSSENCRequest: the client asks to encrypt; `length` bytes to consume. */
  | { type: 'encryption'; length: number }
  | { type: 'cancel'; length: number }
  | { type: 'startup'; length: number; params: Record<string, string> };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads one packet from the start of `buf`, or says it has not fully arrived yet. */
export function readStartupPacket(buf: Uint8Array): StartupPacket {
  if (buf.length < 8) return { type: 'incomplete' };
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const length = view.getInt32(0);
  const code = view.getInt32(4);
  if (length < 8 || length > MAX_STARTUP_LENGTH) return { type: 'invalid', reason: 'bad start-up length' };
  if (code === SSL_REQUEST || code === GSS_ENC_REQUEST) {
    return length === 8 ? { type: 'encryption', length } : { type: 'invalid', reason: 'bad request length' };
  }
  if (code === CANCEL_REQUEST) {
    if (length !== 16) return { type: 'invalid', reason: 'bad cancel length' };
    return buf.length < 16 ? { type: 'incomplete' } : { type: 'cancel', length };
  }
  // Protocol 3.x: major version in the high 16 bits (3.0 is 196608, 3.2 is 196610).
  if (code >>> 16 !== 3) return { type: 'invalid', reason: 'unsupported protocol version' };
  if (buf.length < length) return { type: 'incomplete' };
  const body = buf.subarray(8, length);
  if (body[body.length - 1] !== 0) return { type: 'invalid', reason: 'unterminated start-up packet' };
  let text: string;
  try {
    text = decoder.decode(body.subarray(0, body.length - 1));
  } catch {
    return { type: 'invalid', reason: 'start-up packet is not UTF-8' };
  }
  if (text === '') return { type: 'startup', length, params: {} };
  // Every name and value ends with its own \0, so the text ends with one and splits into pairs plus ''.
  const parts = text.split('\0');
  if (parts.pop() !== '' || parts.length % 2 !== 0) {
    return { type: 'invalid', reason: 'malformed start-up parameters' };
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i += 2) {
    const name = parts[i] as string;
    if (name === '' || Object.hasOwn(params, name)) {
      return { type: 'invalid', reason: 'malformed start-up parameters' };
    }
    params[name] = parts[i + 1] as string;
  }
  return { type: 'startup', length, params };
}

/** The database a start-up packet asks for: `database`, defaulting to `user` as PostgreSQL does. */
export const requestedDatabase = (params: Record<string, string>): string | undefined =>
  params.database || params.user;

/**
 * Why a start-up packet may not pass to `database`, or undefined when it may. A replication
 * connection is refused: a physical one streams the whole cluster, whatever database it names.
 */
export function startupRefusal(params: Record<string, string>, database: string): string | undefined {
  if (requestedDatabase(params) !== database) return 'this tunnel reaches only its own database';
  const replication = params.replication?.toLowerCase();
  if (replication !== undefined && !['false', 'off', 'no', '0'].includes(replication)) {
    return 'replication connections are not tunnelled';
  }
  return undefined;
}

/** The one-byte answer to an SSLRequest or GSSENCRequest: "N", carry on unencrypted. */
export const ENCRYPTION_DECLINED = new Uint8Array([0x4e]);

/** PostgreSQL ErrorResponse (severity FATAL, SQLSTATE 08004) the client shows as the reason. */
export function fatalError(message: string): Uint8Array {
  const fields = `SFATAL\0VFATAL\0C08004\0M${message}\0\0`;
  const payload = new TextEncoder().encode(fields);
  const out = new Uint8Array(5 + payload.length);
  out[0] = 0x45; // 'E'
  new DataView(out.buffer).setInt32(1, 4 + payload.length);
  out.set(payload, 5);
  return out;
}

/** An SSLRequest, sent by the tunnel itself when the cluster wants TLS. */
export function sslRequest(): Uint8Array {
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  view.setInt32(0, 8);
  view.setInt32(4, SSL_REQUEST);
  return out;
}
