/** The IAM stand-in pages ListUsers as IAM documents it: MaxItems, IsTruncated and Marker, in order, each page costing its own size. */
import { describe, expect, it } from 'vitest';
import { AwsFault, type IamState, iamAction } from './iam-actions';

const call = (state: IamState, params: Record<string, string>) =>
  iamAction(state, new URLSearchParams({ Version: '2010-05-08', ...params }), () => undefined);

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const names = (xml: string) => [...xml.matchAll(/<UserName>([^<]+)<\/UserName>/g)].map((m) => m[1]);

/** Every user under `prefix`, page by page; returns the names and the pages' sizes. */
function listAll(state: IamState, prefix: string, max: number) {
  const seen: string[] = [];
  const sizes: number[] = [];
  let marker: string | undefined;
  do {
    const xml = call(state, {
      Action: 'ListUsers',
      PathPrefix: prefix,
      MaxItems: String(max),
      ...(marker ? { Marker: marker } : {}),
    });
    sizes.push(names(xml).length);
    seen.push(...(names(xml) as string[]));
    marker = tag(xml, 'IsTruncated') === 'true' ? tag(xml, 'Marker') : undefined;
  } while (marker);
  return { seen, sizes };
}

describe('ListUsers paging', () => {
  const state: IamState = { users: {} };
  for (let b = 0; b < 30; b++)
    for (let u = 0; u < 40; u++)
      call(state, {
        Action: 'CreateUser',
        UserName: `k${b}x${u}`,
        Path: `/tether/b${String(b).padStart(2, '0')}/`,
      });

  it('returns every user under a prefix exactly once, a page of MaxItems at a time, ending with IsTruncated false', () => {
    const { seen, sizes } = listAll(state, '/tether/', 250);
    expect(seen).toHaveLength(1200);
    expect(new Set(seen).size).toBe(1200);
    expect(sizes).toEqual([250, 250, 250, 250, 200]);
    expect(listAll(state, '/tether/b07/', 1000).seen.sort()).toEqual(
      Array.from({ length: 40 }, (_, u) => `k7x${u}`).sort(),
    );
  });

  it('answers 100 users when MaxItems is absent, with a Marker to go on from', () => {
    const xml = call(state, { Action: 'ListUsers', PathPrefix: '/tether/' });
    expect(names(xml)).toHaveLength(100);
    expect(tag(xml, 'IsTruncated')).toBe('true');
    expect(tag(xml, 'Marker')).toBeTruthy();
  });

  it('goes on after its marker when users are made and deleted between pages', () => {
    const first = call(state, { Action: 'ListUsers', PathPrefix: '/tether/b01/', MaxItems: '10' });
    const marker = tag(first, 'Marker') as string;
    const later = listAll(state, '/tether/b01/', 1000).seen.filter((n) => !names(first).includes(n));
    const gone = later[0] as string;
    call(state, { Action: 'DeleteUser', UserName: gone });
    call(state, { Action: 'CreateUser', UserName: 'k1xnew', Path: '/tether/b01/' });
    const next = call(state, {
      Action: 'ListUsers',
      PathPrefix: '/tether/b01/',
      MaxItems: '1000',
      Marker: marker,
    });
    expect(names(next)).toContain('k1xnew');
    expect(names(next)).not.toContain(gone);
    expect(names(next)).toHaveLength(later.length);
    expect(names(next).filter((n) => names(first).includes(n))).toEqual([]);
  });

  it('refuses MaxItems outside 1 to 1000 with ValidationError', () => {
    expect(() => call(state, { Action: 'ListUsers', MaxItems: '0' })).toThrow(AwsFault);
    expect(() => call(state, { Action: 'ListUsers', MaxItems: '1001' })).toThrow(/MaxItems/);
  });
});
