/** MongoDB Atlas: its variables (MONGODB_*) and its Admin API adapter. */
import { z } from 'zod';
import { AtlasMongoAdmin, type MongoAdmin } from '../../adapters/mongodb-admin';
import { halfOfPair } from '../../config';
import { defineSystem } from '../outside-system';

/** The Atlas project MongoDB databases live in; its adapter is null where none is configured. */
export const atlasProject = defineSystem({
  name: 'mongodb',
  variables: {
    MONGODB_ADMIN_URL: z
      .string()
      .url()
      .regex(/\/groups\/[^/]+\/*$/, 'must end in /api/atlas/v2/groups/<groupId>')
      .optional(),
    MONGODB_ADMIN_KEY: z.string().optional(),
    /**
     * Where apps reach MongoDB (`host:port[,…]` or `mongodb+srv://<cluster host>`): required with
     * MONGODB_ADMIN_URL, because no default names a deployment that exists.
     */
    MONGODB_PUBLIC_HOST: z.string().optional(),
    /** Where outside systems reach MongoDB (an Atlas `mongodb+srv://` host); default the public host. */
    MONGODB_EXTERNAL_HOST: z.string().optional(),
  },
  check: (vars) => [
    ...halfOfPair(vars, 'MONGODB_ADMIN_URL', 'MONGODB_ADMIN_KEY'),
    ...(vars.MONGODB_ADMIN_URL && !vars.MONGODB_PUBLIC_HOST ? ['MONGODB_PUBLIC_HOST'] : []),
  ],
  build: (vars): MongoAdmin | null =>
    vars.MONGODB_ADMIN_URL && vars.MONGODB_ADMIN_KEY
      ? new AtlasMongoAdmin(vars.MONGODB_ADMIN_URL, vars.MONGODB_ADMIN_KEY)
      : null,
});
