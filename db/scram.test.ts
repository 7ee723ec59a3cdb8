/** SCRAM-SHA-256 verifiers: the keys match RFC 7677's worked example, and the stored form is PostgreSQL's. */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scramClientFinal, scramKeys, scramVerifier } from './scram';

// RFC 7677 section 3: user "user", password "pencil".
const SALT = 'W22ZaJ0SNY7soEsUEjb6gQ==';
const NONCE = 'rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
const AUTH_MESSAGE = `n=user,r=rOprNGfwEbeRWgbNEkqO,r=${NONCE},s=${SALT},i=4096,c=biws,r=${NONCE}`;
const CLIENT_PROOF = 'dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=';
const SERVER_SIGNATURE = '6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=';

describe('SCRAM-SHA-256 keys', () => {
  it("give RFC 7677's server signature and accept its client proof", async () => {
    const { storedKey, serverKey } = await scramKeys('pencil', Buffer.from(SALT, 'base64'));
    const serverSignature = createHmac('sha256', Buffer.from(serverKey))
      .update(AUTH_MESSAGE)
      .digest('base64');
    expect(serverSignature).toBe(SERVER_SIGNATURE);
    // The server's check: H(ClientProof XOR HMAC(StoredKey, AuthMessage)) == StoredKey.
    const clientSignature = createHmac('sha256', Buffer.from(storedKey)).update(AUTH_MESSAGE).digest();
    const proof = Buffer.from(CLIENT_PROOF, 'base64');
    const clientKey = proof.map((b, i) => b ^ (clientSignature[i] as number));
    expect(createHash('sha256').update(clientKey).digest().equals(Buffer.from(storedKey))).toBe(true);
  });

  it("are stored in PostgreSQL's form, with a fresh salt each time", async () => {
    const a = await scramVerifier('Secret-123');
    const b = await scramVerifier('Secret-123');
    const shape = /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}=$/;
    expect(a).toMatch(shape);
    expect(b).toMatch(shape);
    expect(a).not.toBe(b);
    expect(a).not.toContain('Secret-123');
  });

  it('refuse passwords that would need SASLprep', async () => {
    await expect(scramVerifier('pässword')).rejects.toThrow(/ASCII/);
    await expect(scramVerifier('has space')).rejects.toThrow(/ASCII/);
  });
});

describe('SCRAM-SHA-256 client login', () => {
  const SERVER_FIRST = `r=${NONCE},s=${SALT},i=4096`;

  it("answers RFC 7677's server-first message with its client-final message and expects its server signature", async () => {
    const final = await scramClientFinal('pencil', 'rOprNGfwEbeRWgbNEkqO', SERVER_FIRST, 'user');
    expect(final.response).toBe(`c=biws,r=${NONCE},p=${CLIENT_PROOF}`);
    expect(final.serverSignature).toBe(SERVER_SIGNATURE);
    // A second login of the same role (keys kept) gives the same answer.
    expect(await scramClientFinal('pencil', 'rOprNGfwEbeRWgbNEkqO', SERVER_FIRST, 'user')).toEqual(final);
  });

  it('refuses a server nonce that does not extend the client nonce, a bad salt or count', async () => {
    await expect(scramClientFinal('pencil', 'other', SERVER_FIRST)).rejects.toThrow(/nonce/);
    await expect(scramClientFinal('pencil', 'rOpr', `r=rOpr,s=${SALT},i=4096`)).rejects.toThrow(/nonce/);
    await expect(scramClientFinal('pencil', 'rOpr', 'r=rOprX,s=%%,i=4096')).rejects.toThrow(/salt/);
    await expect(scramClientFinal('pencil', 'rOpr', `r=rOprX,s=${SALT},i=0`)).rejects.toThrow(/count/);
  });
});
