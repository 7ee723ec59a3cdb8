/** The tunnel's reading of PostgreSQL start-up packets (functions/domain/pg-startup.ts). */
import { describe, expect, it } from 'vitest';
import { fatalError, readStartupPacket, requestedDatabase, sslRequest, startupRefusal } from './pg-startup';

/** A start-up packet as libpq and node-postgres write it. */
function startup(params: Record<string, string>, version = 196608): Uint8Array {
  const pairs = Object.entries(params).map(([k, v]) => `${k}\0${v}\0`);
  const body = Buffer.from(`${pairs.join('')}\0`, 'utf8');
  const out = Buffer.alloc(8 + body.length);
  out.writeInt32BE(out.length, 0);
  out.writeInt32BE(version, 4);
  body.copy(out, 8);
  return out;
}

describe('readStartupPacket', () => {
  it('reads the parameters of a protocol 3.0 start-up', () => {
    const packet = startup({ user: 'c_abc', database: 'main_x1', client_encoding: 'UTF8' });
    expect(readStartupPacket(packet)).toEqual({
      type: 'startup',
      length: packet.length,
      params: { user: 'c_abc', database: 'main_x1', client_encoding: 'UTF8' },
    });
  });

  it('accepts protocol 3.2 (PostgreSQL 18 clients)', () => {
    expect(readStartupPacket(startup({ user: 'u' }, 196610)).type).toBe('startup');
  });

  it('waits for the rest of a packet split across frames', () => {
    const packet = startup({ user: 'u', database: 'd' });
    expect(readStartupPacket(packet.subarray(0, 5))).toEqual({ type: 'incomplete' });
    expect(readStartupPacket(packet.subarray(0, packet.length - 1))).toEqual({ type: 'incomplete' });
  });

  it('recognises SSLRequest and GSSENCRequest', () => {
    expect(readStartupPacket(sslRequest())).toEqual({ type: 'encryption', length: 8 });
    const gss = Buffer.alloc(8);
    gss.writeInt32BE(8, 0);
    gss.writeInt32BE(80877104, 4);
    expect(readStartupPacket(gss)).toEqual({ type: 'encryption', length: 8 });
  });

  it('recognises a CancelRequest', () => {
    const cancel = Buffer.alloc(16);
    cancel.writeInt32BE(16, 0);
    cancel.writeInt32BE(80877102, 4);
    expect(readStartupPacket(cancel)).toEqual({ type: 'cancel', length: 16 });
  });

  it.each([
    ['a length over 10000', (b: Buffer) => b.writeInt32BE(10_001, 0)],
    ['a length under 8', (b: Buffer) => b.writeInt32BE(4, 0)],
    ['protocol 2.0', (b: Buffer) => b.writeInt32BE(131072, 4)],
    ['a missing terminator', (b: Buffer) => b.writeUInt8(0x41, b.length - 1)],
  ])('refuses %s', (_name, spoil) => {
    const packet = Buffer.from(startup({ user: 'u', database: 'd' }));
    spoil(packet);
    expect(readStartupPacket(packet).type).toBe('invalid');
  });

  it('refuses a parameter without a value and a repeated parameter', () => {
    const odd = Buffer.from('\0\0\0\0\0\x03\0\0user\0u\0database\0', 'latin1');
    odd.writeInt32BE(odd.length, 0);
    expect(readStartupPacket(odd).type).toBe('invalid');
    const twice = Buffer.from('\0\0\0\0\0\x03\0\0database\0a\0database\0b\0\0', 'latin1');
    twice.writeInt32BE(twice.length, 0);
    expect(readStartupPacket(twice)).toEqual({ type: 'invalid', reason: 'malformed start-up parameters' });
  });
});

describe('startupRefusal', () => {
  it('lets through a start-up for the tunnel database', () => {
    expect(startupRefusal({ user: 'c_1', database: 'main_x1' }, 'main_x1')).toBeUndefined();
  });
  it('refuses another database of the cluster', () => {
    expect(startupRefusal({ user: 'c_1', database: 'postgres' }, 'main_x1')).toMatch(/only its own database/);
  });
  it('takes the user name as the database when none is named, as PostgreSQL does', () => {
    expect(requestedDatabase({ user: 'main_x1' })).toBe('main_x1');
    expect(startupRefusal({ user: 'postgres' }, 'main_x1')).toMatch(/only its own database/);
  });
  it.each(['true', 'database', 'on'])('refuses replication=%s', (replication) => {
    expect(startupRefusal({ user: 'c', database: 'main_x1', replication }, 'main_x1')).toMatch(/replication/);
  });
  it('allows replication=false', () => {
    expect(
      startupRefusal({ user: 'c', database: 'main_x1', replication: 'false' }, 'main_x1'),
    ).toBeUndefined();
  });
});

describe('fatalError', () => {
  it('is an ErrorResponse whose length field covers the message', () => {
    const bytes = Buffer.from(fatalError('no'));
    expect(bytes.subarray(0, 1).toString()).toBe('E');
    expect(bytes.readInt32BE(1)).toBe(bytes.length - 1);
    expect(bytes.toString('utf8')).toContain('Mno\0');
  });
});
