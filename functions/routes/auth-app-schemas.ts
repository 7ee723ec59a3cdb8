/** The request and response bodies of the auth app routes (routes/auth-apps.ts). */
import { z } from '../lib/openapi';
import { allProviders } from '../services/sign-in/providers/registry';
import { UserSchema } from './oauth/shared';

/** providers.{name} of every registered provider, in the app object (`view`) or a PATCH (`patch`). */
const providerShapes = (pick: 'view' | 'patch') =>
  Object.fromEntries(
    allProviders().map((p) => [
      p.name,
      pick === 'view' ? p.viewSchema.optional() : p.patchSchema.nullable().optional(),
    ]),
  );

export const AuthAppSchema = z
  .object({
    id: z.string(),
    app_id: z.string(),
    name: z.string().nullable(),
    enabled: z.boolean(),
    allowed_origins: z.array(z.string()),
    user_limit: z.number().int().nullable(),
    require_issued_nonce: z.boolean().openapi({
      description:
        'accept only ID tokens bound to a nonce issued by POST {auth_url}/oauth/nonce (contract §9)',
    }),
    providers: z.object(providerShapes('view')),
    auth_url: z.string(),
    created_at: z.string(),
  })
  .openapi('AuthApp');

export const AdminUserSchema = UserSchema.extend({ disabled: z.boolean() }).openapi('AuthAppUser');

export const PatchSchema = z
  .object({
    name: z.string().trim().min(1).max(100).nullable().optional(),
    enabled: z.boolean().optional(),
    allowed_origins: z.array(z.string().max(2048)).max(50).optional(),
    user_limit: z.number().int().min(0).max(100_000_000).nullable().optional(),
    require_issued_nonce: z.boolean().optional(),
    providers: z.object(providerShapes('patch')).strict().optional(),
  })
  .strict();
