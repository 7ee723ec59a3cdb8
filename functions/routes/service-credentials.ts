/** The service's own credentials (contract §7): a database's main user, a bucket's own key. Admin only. */
import { isUuid } from '../lib/ids';
import { apiRoute, errorResponses, json, z } from '../lib/openapi';
import type { RequestContext } from '../request-context';
import {
  bucketCredentials,
  databaseCredentials,
  rotateBucketKey,
  rotateDatabasePassword,
} from '../use-cases/access/service-credentials';
import type { BatchQuery } from '../use-cases/caller/api-caller';
import { type ReadScope, read, rowsRead } from '../use-cases/caller/declared-reads';
import {
  type OpenRetirement,
  openRetirementsOf,
  openRetirementsQuery,
} from '../use-cases/credentials/retirements';
import { bucketQuery } from '../use-cases/resources/buckets';
import { databaseQuery } from '../use-cases/resources/databases';
import { connectedSiteInputsQuery, type SiteEnvInputs } from '../use-cases/site-env/derive';
import { declaredRoutes, declareReads } from './declared-reads';
import { GraceSecondsQuery } from './grace-seconds';
import { ProjectParam, requestContext } from './shared';

const DatabaseCredentialsSchema = z
  .object({
    user: z.string().openapi({ description: 'the main user, u_…' }),
    password: z.string(),
    url: z.string().openapi({ description: 'as apps reach the cluster' }),
    external_url: z.string().openapi({ description: 'from outside the platform' }),
    pooled_url: z
      .string()
      .openapi({ description: 'through the connection pooler (MongoDB: the external URL)' }),
  })
  .openapi('DatabaseCredentials');

const BucketCredentialsSchema = z
  .object({
    access_key_id: z.string(),
    secret_access_key: z.string(),
    endpoint: z.string(),
    bucket: z.string(),
    region: z.string(),
  })
  .openapi('BucketCredentials');

/** The service's id in the path, or one naming nothing when it is not a uuid (its read then finds no row). */
const idOr = (id: string | undefined) =>
  id && isUuid(id) ? id.toLowerCase() : '00000000-0000-0000-0000-000000000000';

/** What a kind's two credential routes say and do; the routes are the same for each. */
interface CredentialRoutes<Row, Shown extends z.ZodType> {
  segment: string;
  param: string;
  schema: Shown;
  query: (
    http: ReadScope['http'],
    project: ReadScope['project'],
    id: string,
  ) => BatchQuery & PromiseLike<Row[]>;
  show(ctx: RequestContext, rows: Row[]): Promise<z.infer<Shown>>;
  rotate(
    ctx: RequestContext,
    rows: Row[],
    holders: SiteEnvInputs[],
    open: OpenRetirement[],
    graceSeconds?: number,
  ): Promise<z.infer<Shown>>;
  getSummary: string;
  rotateSummary: string;
  rotateDescription: string;
  shown: string;
  rotated: string;
  rotateErrors: Array<409 | 503>;
}

export const serviceCredentialsRoutes = declaredRoutes();

function credentialRoutes<Row, Shown extends z.ZodType>(kind: CredentialRoutes<Row, Shown>): void {
  const Params = ProjectParam.extend({ [kind.param]: z.string() });
  const base = `/projects/{id}/${kind.segment}/{${kind.param}}/credentials`;
  /** The service the path names, at admin. */
  const serviceRead = declareReads({ role: 'admin' }, ({ http, path, project }) => ({
    rows: rowsRead(kind.query(http, project, path[kind.param] ?? '')),
  }));
  /** The service the path names and the sites connected to it, at admin. */
  const holdersRead = declareReads({ role: 'admin' }, ({ http, path, project }) => ({
    rows: rowsRead(kind.query(http, project, path[kind.param] ?? '')),
    holders: rowsRead(connectedSiteInputsQuery(http, idOr(path[kind.param]))),
    retiring: read(openRetirementsQuery(http, idOr(path[kind.param]), null), openRetirementsOf),
  }));

  serviceCredentialsRoutes.openapi(
    apiRoute({
      method: 'get',
      path: base,
      tags: ['credentials'],
      summary: kind.getSummary,
      middleware: serviceRead.middleware,
      request: { params: Params },
      responses: { 200: json(kind.schema, kind.shown) },
    }),
    async (c) => c.json(await kind.show(requestContext(c), serviceRead.of(c).rows), 200),
  );

  serviceCredentialsRoutes.openapi(
    apiRoute({
      method: 'post',
      path: `${base}/rotate`,
      tags: ['credentials'],
      summary: kind.rotateSummary,
      middleware: holdersRead.middleware,
      description: kind.rotateDescription,
      request: { params: Params, query: z.object({ grace_seconds: GraceSecondsQuery }) },
      responses: { 200: json(kind.schema, kind.rotated), ...errorResponses(...kind.rotateErrors) },
    }),
    async (c) => {
      const { rows, holders, retiring } = holdersRead.of(c);
      const grace = c.req.valid('query').grace_seconds;
      return c.json(await kind.rotate(requestContext(c), rows, holders.rows, retiring, grace), 200);
    },
  );
}

credentialRoutes({
  segment: 'databases',
  param: 'dbId',
  schema: DatabaseCredentialsSchema,
  query: databaseQuery,
  show: databaseCredentials,
  rotate: rotateDatabasePassword,
  getSummary: "The database's main user u_… with its password and URLs (admin)",
  rotateSummary: "Give the database's main user a new password (admin)",
  rotateDescription:
    "Apps' own credentials do not change. Apps handed the shared credential (standalone MongoDB, connected while the database was stopped, apps from before per-connection credentials) get the new password by live patch, reason `credential`. 503 with nothing changed when the cluster or Atlas cannot be reached; 409 when another rotation of the database stored its password at the same time (the cluster keeps that one). `?grace_seconds` other than 0 is 400: the main user keeps one password at a time (PostgreSQL and MongoDB hold one a login, and its name is fixed).",
  shown: 'the main credentials (shown)',
  rotated: 'the new main credentials (shown)',
  rotateErrors: [409, 503],
});

credentialRoutes({
  segment: 'buckets',
  param: 'bucketId',
  schema: BucketCredentialsSchema,
  query: bucketQuery,
  show: bucketCredentials,
  rotate: rotateBucketKey,
  getSummary: "The bucket's own key (admin)",
  rotateSummary: "Replace the bucket's own key (admin)",
  rotateDescription:
    "A new key id and secret; the old key stops working at once (and so does one an earlier `grace_seconds` still keeps). With `?grace_seconds=N` (0 to 86400) the new key is the key user's second access key and the old one keeps working N seconds, then the reconciler deletes it (docs/contract.md §14); 409 while an earlier grace still keeps an old key (IAM holds two a user). Apps' own keys do not change. 503 with nothing changed when IAM cannot be reached.",
  shown: 'the bucket key (shown)',
  rotated: 'the new key (shown)',
  rotateErrors: [503],
});
