/** The managed key's capabilities, derived from a site's connections (docs/connections.md, the managed key). */
import { describe, expect, it } from 'vitest';
import { capabilitiesOf } from './managed-key';

const c = (kind: string, resourceId: string, level: string) => ({ kind, resourceId, level });

describe('managed key capabilities', () => {
  it('storage for a bucket and databases for a database, read levels included', () => {
    expect(capabilitiesOf([c('bucket', 'b1', 'read')])).toEqual({ storage: true });
    expect(capabilitiesOf([c('database', 'd1', 'read-only')])).toEqual({ databases: true });
    expect(capabilitiesOf([c('bucket', 'b1', 'read-write'), c('database', 'd1', 'connect')])).toEqual({
      storage: true,
      databases: true,
    });
  });

  it('auth narrowed to exactly the auth apps connected at admin', () => {
    expect(
      capabilitiesOf([
        c('auth_app', 'a2', 'admin'),
        c('auth_app', 'a1', 'admin'),
        c('auth_app', 'a3', 'client'),
      ]),
    ).toEqual({ auth: ['a1', 'a2'] });
  });

  it('no capability (none, or only auth apps at client) gives no key', () => {
    expect(capabilitiesOf([])).toBeNull();
    expect(capabilitiesOf([c('auth_app', 'a1', 'client')])).toBeNull();
  });
});
