/**
 * A local MongoDB endpoint that checks logins and nothing more: enough of MongoDB's wire
 * protocol (OP_MSG, and OP_QUERY for a legacy first `isMaster`) for the official drivers to
 * connect, log in with SCRAM-SHA-256 as the users the Atlas stand-in holds (their passwords,
 * expiry and clientSource allowlists), and run `ping`. Every other command is refused with a
 * message saying so: there is no data here. It lets `MONGODB_URI` as `npm start` hands it out
 * be tried with a real driver; a real deployment is named by MONGODB_PUBLIC_HOST instead.
 */
import { createServer, type Socket } from 'node:net';
import { Binary, type Document, deserialize, serialize } from 'bson';
import { type ScramConversation, scramFinish, scramStart } from './mongodb-scram';

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
/** OP_MSG flags: a CRC-32C follows the sections; the sender expects no answer. */
const CHECKSUM_PRESENT = 1;
const MORE_TO_COME = 2;
const MAX_MESSAGE = 48_000_000;

/** Who may log in: the password of `username` when it may log in from `from` now, else undefined. */
export type PasswordLookup = (username: string, from: string) => string | undefined;

/** A running endpoint. */
export interface MongoWire {
  /** `127.0.0.1:<port>`, the value for MONGODB_PUBLIC_HOST. */
  host: string;
  port: number;
  stop(): Promise<void>;
}

/** Commands answered before a login (MongoDB's own list, less what needs data). */
const OPEN = new Set(['hello', 'ismaster', 'saslstart', 'saslcontinue', 'ping', 'buildinfo', 'endsessions']);

const failure = (code: number, codeName: string, errmsg: string): Document => ({
  ok: 0,
  errmsg,
  code,
  codeName,
});

/** One connection's state: its number and the login under way or done. */
interface Connection {
  id: number;
  from: string;
  scram?: ScramConversation;
  user?: string;
}

function helloReply(conn: Connection, request: Document): Document {
  return {
    helloOk: true,
    isWritablePrimary: true,
    ismaster: true,
    ...(typeof request.saslSupportedMechs === 'string' ? { saslSupportedMechs: ['SCRAM-SHA-256'] } : {}),
    maxBsonObjectSize: 16 * 1024 * 1024,
    maxMessageSizeBytes: MAX_MESSAGE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: conn.id,
    minWireVersion: 0,
    maxWireVersion: 21,
    readOnly: false,
    ok: 1,
  };
}

async function command(conn: Connection, request: Document, passwordFor: PasswordLookup): Promise<Document> {
  const name = Object.keys(request)[0] ?? '';
  const lower = name.toLowerCase();
  if (!conn.user && !OPEN.has(lower))
    return failure(13, 'Unauthorized', `command ${name} requires authentication`);
  switch (lower) {
    case 'hello':
    case 'ismaster':
      return helloReply(conn, request);
    case 'ping':
    case 'endsessions':
      return { ok: 1 };
    case 'buildinfo':
      return { version: '7.0.0', versionArray: [7, 0, 0, 0], ok: 1 };
    case 'saslstart': {
      if (request.mechanism !== 'SCRAM-SHA-256')
        return failure(
          334,
          'MechanismUnavailable',
          `Received authentication for mechanism ${String(request.mechanism)} which is unknown or not enabled; this local MongoDB takes SCRAM-SHA-256 only`,
        );
      const payload = request.payload instanceof Binary ? Buffer.from(request.payload.buffer).toString() : '';
      // Users live in the admin database (authSource=admin), as Atlas keeps them.
      const scram = scramStart(payload, (user) =>
        request.$db === 'admin' ? passwordFor(user, conn.from) : undefined,
      );
      if (!scram) return failure(17, 'ProtocolError', 'SCRAM: malformed client-first message');
      conn.scram = scram;
      return { conversationId: 1, done: false, payload: new Binary(Buffer.from(scram.serverFirst)), ok: 1 };
    }
    case 'saslcontinue': {
      const scram = conn.scram;
      if (!scram) return failure(17, 'ProtocolError', 'No SASL session state found');
      if (scram.done) {
        conn.user = scram.username;
        return { conversationId: 1, done: true, payload: new Binary(Buffer.alloc(0)), ok: 1 };
      }
      const payload = request.payload instanceof Binary ? Buffer.from(request.payload.buffer).toString() : '';
      const serverFinal = await scramFinish(scram, payload);
      if (!serverFinal) {
        conn.scram = undefined;
        return failure(18, 'AuthenticationFailed', 'Authentication failed.');
      }
      const skipEmpty = (request.options as Document | undefined)?.skipEmptyExchange === true;
      if (skipEmpty) conn.user = scram.username;
      return { conversationId: 1, done: skipEmpty, payload: new Binary(Buffer.from(serverFinal)), ok: 1 };
    }
    default:
      return failure(
        59,
        'CommandNotFound',
        `no such command: '${name}'. Tether's local MongoDB checks logins only (hello, SCRAM-SHA-256, ping); it keeps no data`,
      );
  }
}

function frame(requestId: number, responseTo: number, opCode: number, body: Buffer): Buffer {
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return Buffer.concat([header, body]);
}

/** The command document of one message, and how to answer it (null: no answer expected). */
function parse(
  opCode: number,
  body: Buffer,
): { doc: Document; reply: ((d: Document) => Buffer) | null } | null {
  if (opCode === OP_MSG) {
    const flags = body.readUInt32LE(0);
    const end = body.length - (flags & CHECKSUM_PRESENT ? 4 : 0);
    let at = 4;
    let doc: Document | undefined;
    const sequences: Record<string, Document[]> = {};
    while (at < end) {
      const kind = body[at];
      at += 1;
      const size = body.readInt32LE(at);
      if (kind === 0) doc = deserialize(body.subarray(at, at + size));
      else {
        const nameEnd = body.indexOf(0, at + 4);
        const name = body.subarray(at + 4, nameEnd).toString();
        const docs: Document[] = [];
        for (let p = nameEnd + 1; p < at + size; p += body.readInt32LE(p))
          docs.push(deserialize(body.subarray(p, p + body.readInt32LE(p))));
        sequences[name] = docs;
      }
      at += size;
    }
    if (!doc) return null;
    const reply = (d: Document) => Buffer.concat([Buffer.alloc(5), serialize(d)]);
    return { doc: { ...doc, ...sequences }, reply: flags & MORE_TO_COME ? null : reply };
  }
  if (opCode === OP_QUERY) {
    const nameEnd = body.indexOf(0, 4);
    const collection = body.subarray(4, nameEnd).toString();
    const docAt = nameEnd + 1 + 8;
    const doc = deserialize(body.subarray(docAt, docAt + body.readInt32LE(docAt)));
    const reply = (d: Document) => {
      const head = Buffer.alloc(20);
      head.writeInt32LE(1, 16);
      return Buffer.concat([head, serialize(d)]);
    };
    // Only commands (`<db>.$cmd`) exist here; `$db` is where OP_MSG names the database.
    return { doc: { ...doc, $db: collection.replace(/\.\$cmd$/, '') }, reply };
  }
  return null;
}

/** Starts the endpoint on 127.0.0.1 (a free port unless given); `host` names where clients reach it. */
export async function startMongoWire(opts: {
  port?: number;
  passwordFor: PasswordLookup;
}): Promise<MongoWire> {
  let nextId = 1;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const conn: Connection = { id: nextId++, from: (socket.remoteAddress ?? '').replace(/^::ffff:/, '') };
    let pending = Buffer.alloc(0);
    let queue = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 16) {
        const length = pending.readInt32LE(0);
        if (length < 16 || length > MAX_MESSAGE) return void socket.destroy();
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        queue = queue
          .then(() => answer(socket, conn, message, opts.passwordFor))
          .catch(() => {
            socket.destroy();
          });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    host: `127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let replyId = 1;
async function answer(
  socket: Socket,
  conn: Connection,
  message: Buffer,
  passwordFor: PasswordLookup,
): Promise<void> {
  const requestId = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  const parsed = parse(opCode, message.subarray(16));
  if (!parsed) {
    // OP_COMPRESSED and the retired opcodes: a driver only sends them when asked to.
    socket.destroy();
    return;
  }
  const result = await command(conn, parsed.doc, passwordFor);
  if (!parsed.reply) return;
  socket.write(frame(replyId++, requestId, opCode === OP_MSG ? OP_MSG : OP_REPLY, parsed.reply(result)));
}
