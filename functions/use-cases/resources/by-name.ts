/**
 * Services by name: wherever a path takes a database's, bucket's or auth app's id it also takes
 * its name (an auth app's `app_id`), as a site's path takes its slug. The name is turned into the
 * id before routing, so every route, its checks and its answers (which carry ids) stay as they
 * are; a name costs one lookup more than an id. A name that names nothing is left as it is, and
 * the route answers its 404.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { HttpDb } from '../../../db/client';
import { SERVICE_NAME_RE, SLUG_RE } from '../../domain/names';
import { isUuid } from '../../lib/ids';

/** The path segment that names each kind of service, and the kind word connection paths use. */
const SEGMENTS = { databases: 'database', buckets: 'bucket', 'auth-apps': 'auth_app' } as const;
type KindWord = (typeof SEGMENTS)[keyof typeof SEGMENTS];

const SERVICE_PATH = /^(\/api\/v1\/projects\/([^/]+)\/)(databases|buckets|auth-apps)\/([^/]+)(\/.*)?$/;
const CONNECTION_PATH =
  /^(\/api\/v1\/projects\/([^/]+)\/sites\/[^/]+\/connections\/)(database|bucket|auth_app)\/([^/]+)(\/.*)?$/;

/** Where a path names a service: its project, kind and name, and how to put the id in its place. */
export interface NamedService {
  project: string;
  kind: KindWord;
  name: string;
  withId(id: string): string;
}

/** The service a path names by name rather than id, or null (an id, or no service path). */
export function namedServiceIn(path: string): NamedService | null {
  const service = SERVICE_PATH.exec(path);
  const connection = service ? null : CONNECTION_PATH.exec(path);
  const m = service ?? connection;
  if (!m) return null;
  const [, head = '', project = '', segment = '', ref = '', tail = ''] = m;
  let name: string;
  try {
    name = decodeURIComponent(ref);
  } catch {
    return null;
  }
  if (isUuid(name) || !SERVICE_NAME_RE.test(name)) return null;
  if (!(isUuid(project) || SLUG_RE.test(project))) return null;
  const kind = service ? SEGMENTS[segment as keyof typeof SEGMENTS] : (segment as KindWord);
  return { project, kind, name, withId: (id) => `${head}${segment}/${id}${tail}` };
}

/** The query of each kind's live service of a name in a project. */
const LOOKUP: Record<KindWord, (project: SQL, name: string) => SQL> = {
  database: (project, name) => sql`select d.id from databases d join projects p on p.id = d.project_id
    where ${project} and d.name = ${name} and d.deleted_at is null`,
  bucket: (project, name) => sql`select b.id from buckets b join projects p on p.id = b.project_id
    where ${project} and b.name = ${name} and b.deleted_at is null`,
  auth_app: (project, name) => sql`select a.id from auth_apps a join projects p on p.id = a.project_id
    where ${project} and a.app_id = ${name}`,
};

/** The id of the live service `named` names, or undefined. Membership is the route's to check, after. */
export async function serviceIdByName(db: HttpDb, named: NamedService): Promise<string | undefined> {
  const project = isUuid(named.project)
    ? sql`p.id = ${named.project.toLowerCase()}::uuid`
    : sql`p.slug = ${named.project}`;
  const { rows } = await db.execute(LOOKUP[named.kind](project, named.name));
  const id = (rows[0] as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * `request` with the service its path names by name addressed by id instead; the request
 * itself when it names none by name, names one that does not exist, or the lookup fails (the
 * route then answers as it would: 404, or its own 503 when the database is away).
 */
export async function withServiceIds(request: Request, db: () => HttpDb): Promise<Request> {
  const url = new URL(request.url);
  const named = namedServiceIn(url.pathname);
  if (!named) return request;
  const id = await serviceIdByName(db(), named).catch(() => undefined);
  if (!id) return request;
  url.pathname = named.withId(id);
  return new Request(url, request);
}
