/**
 * A tenant cannot become the cluster admin: a function a connect-level app plants
 * under a name the admin statements use never runs with the admin's rights.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createAccount, createProject, type TestProject } from '../helpers/api';
import { createDatabase, createSite } from '../helpers/connections';
import { appSession, attackOutcome, databaseUrlOf, plantHashtextextended } from '../helpers/tenant-attack';
import { triggerScheduled } from '../helpers/worker';

let project: TestProject;
let ownerToken: string;

beforeAll(async () => {
  const owner = await createAccount();
  ownerToken = owner.token;
  project = await createProject(owner.token);
});

describe('a tenant cannot become the cluster admin', () => {
  // Regression (critical): admin statements in a customer database called
  // hashtextextended unqualified, as superuser, with the tenant-owned `public` on the search_path.
  it('a connect-level app that plants public.hashtextextended(text, integer) stays an ordinary role through read-only connects, level changes and the reconciler', async () => {
    const as = api().as(ownerToken);
    const db = await createDatabase(as, project.id);
    const [attacker, reader, mover] = [
      await createSite(as, project.id),
      await createSite(as, project.id),
      await createSite(as, project.id),
    ];
    const connect = (siteId: string, level: string) =>
      as.post(`/api/v1/projects/${project.id}/sites/${siteId}/connections`, {
        kind: 'database',
        resource_id: db.id,
        level,
      });
    expect((await connect(attacker.id, 'connect')).status).toBe(201);
    expect((await connect(mover.id, 'connect')).status).toBe(201);
    const url = await databaseUrlOf(as, project.id, attacker.id);
    const role = decodeURIComponent(new URL(url).username);
    const database = new URL(url).pathname.slice(1);
    const app = await appSession(url);
    try {
      await plantHashtextextended(app, role);
      expect((await connect(reader.id, 'read-only')).status).toBe(201);
      expect((await connect(mover.id, 'read-only')).status).toBe(201);
      await triggerScheduled();
    } finally {
      await app.end().catch(() => undefined);
    }
    expect(await attackOutcome(database, role)).toEqual({ superuser: false, calls: [] });
  });
});
