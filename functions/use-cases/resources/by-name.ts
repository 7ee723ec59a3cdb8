/**
 * Services by name: wherever a path takes a database's, bucket's or auth app's id it also takes
 * its name (an auth app's `app_id`), as a site's path takes its slug. The name is turned into the
 * id before routing, so every route, its checks and its answers (which carry ids) stay as they
 * are; a name costs one lookup more than an id. A name that names nothing is left as it is, and
 * the route answers its 404.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { HttpDb } from '../../../db/client';
import { isKind, type Kind } from '../../domain/levels';
import { SERVICE_NAME_RE, SLUG_RE } from '../../domain/names';
import { kindOf, kindOfSegment } from '../../kinds/registry';
import { liveOnly } from '../../kinds/service-sql';
import { isUuid } from '../../lib/ids';

const SERVICE_PATH = /^(\/api\/v1\/projects\/([^/]+)\/)([a-z-]+)\/([^/]+)(\/.*)?$/;
const CONNECTION_PATH =
  /^(\/api\/v1\/projects\/([^/]+)\/sites\/[^/]+\/connections\/)([a-z_]+)\/([^/]+)(\/.*)?$/;

/** Where a path names a service: its project, kind and name, and how to put the id in its place. */
export interface NamedService {
  project: string;
  kind: Kind;
  name: string;
  withId(id: string): string;
}

/** The service a path names by name rather than id, or null (an id, or no service path). */
export function namedServiceIn(path: string): NamedService | null {
  const servicePath = SERVICE_PATH.exec(path);
  const service = servicePath && kindOfSegment(servicePath[3] ?? '') ? servicePath : null;
  const m = service ?? CONNECTION_PATH.exec(path);
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
  const kind = service ? kindOfSegment(segment) : isKind(segment) ? segment : undefined;
  if (kind === undefined) return null;
  return { project, kind, name, withId: (id) => `${head}${segment}/${id}${tail}` };
}

/** The query of kind `kind`'s live service named `name` in the project `project` (SQL over `p`) names. */
function lookup(kind: Kind, project: SQL, name: string): SQL {
  const k = kindOf(kind);
  return sql`select s.id from ${sql.raw(k.table)} s join projects p on p.id = s.project_id
    where ${project} and s.${sql.raw(k.nameColumn)} = ${name}${liveOnly(k, 's')}`;
}

/** The id of the live service `named` names, or undefined. Membership is the route's to check, after. */
export async function serviceIdByName(db: HttpDb, named: NamedService): Promise<string | undefined> {
  const project = isUuid(named.project)
    ? sql`p.id = ${named.project.toLowerCase()}::uuid`
    : sql`p.slug = ${named.project}`;
  const { rows } = await db.execute(lookup(named.kind, project, named.name));
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
