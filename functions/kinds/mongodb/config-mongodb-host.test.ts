/**
 * MONGODB_PUBLIC_HOST has no default that names a deployment: with MongoDB configured
 * (MONGODB_ADMIN_URL) the environment check requires it, so a Worker never hands apps a URI for
 * a host that resolves nowhere.
 */
import { describe, expect, it } from 'vitest';
import { refusedNames } from '../../../test/helpers/environment-check';
import type { Bindings } from '../../config';
import { loadConfig } from '../registry';
import { atlasProject } from './mongodb-system';

const BASE = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/meta',
  CUSTOMER_DB_ADMIN_URL: 'postgres://a:p@127.0.0.1:5432/postgres',
  OPERATOR_TOKEN: 'o'.repeat(40),
  ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  PUBLIC_BASE_URL: 'https://tether.example.com',
  PUBLIC_AUTH_URL: 'https://auth.example.com',
};
const ATLAS = {
  MONGODB_ADMIN_URL: 'https://cloud.mongodb.com/api/atlas/v2/groups/abc123',
  MONGODB_ADMIN_KEY: 'id:secret',
};

/** The names the environment check refuses, or [] when it accepts `vars`. */
const refused = (vars: Record<string, string>): string[] => refusedNames({ ...vars });

describe('MONGODB_PUBLIC_HOST', () => {
  it('is required once MongoDB is configured, and named when missing', () => {
    expect(refused({ ...BASE, ...ATLAS })).toEqual(['MONGODB_PUBLIC_HOST']);
  });

  it('is taken as given with MongoDB configured', () => {
    const host = 'mongodb+srv://cluster0.abcde.mongodb.net';
    const config = loadConfig({ ...BASE, ...ATLAS, MONGODB_PUBLIC_HOST: host } as unknown as Bindings);
    expect(atlasProject.settings(config).MONGODB_PUBLIC_HOST).toBe(host);
  });

  it('may be left out where no MongoDB is configured, and then has no made-up value', () => {
    expect(refused(BASE)).toEqual([]);
    expect(
      atlasProject.settings(loadConfig({ ...BASE } as unknown as Bindings)).MONGODB_PUBLIC_HOST,
    ).toBeUndefined();
  });
});
