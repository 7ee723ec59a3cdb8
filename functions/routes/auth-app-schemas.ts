/** The request and response bodies of the auth app routes (routes/auth-apps.ts). */
import { ANDROID_PACKAGE_RE, IOS_APP_ID_RE } from '../domain/app-links';
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
    app_links: z
      .object({ ios_app_ids: z.array(z.string()), android_package_names: z.array(z.string()) })
      .openapi({
        description:
          'the mobile apps whose verified links may be redirect origins; every https origin added must serve association files listing them',
      }),
    providers: z.object(providerShapes('view')),
    auth_url: z.string(),
    created_at: z.string(),
  })
  .openapi('AuthApp');

export const AdminUserSchema = UserSchema.extend({ disabled: z.boolean() }).openapi('AuthAppUser');

/** A user in the app's users listing: the admin view plus when they last signed in. */
export const ListedUserSchema = AdminUserSchema.extend({
  last_sign_in_at: z
    .string()
    .nullable()
    .openapi({ description: 'when the user last signed in (opened a session); null if never' }),
}).openapi('AuthAppListedUser');

export const PatchSchema = z
  .object({
    name: z.string().trim().min(1).max(100).nullable().optional(),
    enabled: z.boolean().optional(),
    allowed_origins: z.array(z.string().max(2048)).max(50).optional(),
    user_limit: z.number().int().min(0).max(100_000_000).nullable().optional(),
    require_issued_nonce: z.boolean().optional(),
    app_links: z
      .object({
        ios_app_ids: z
          .array(z.string().regex(IOS_APP_ID_RE, 'an Apple app ID: <Team ID>.<bundle ID>'))
          .max(20)
          .optional(),
        android_package_names: z
          .array(z.string().max(255).regex(ANDROID_PACKAGE_RE, 'an Android package name'))
          .max(20)
          .optional(),
      })
      .strict()
      .optional()
      .openapi({ description: 'a list left out keeps its value' }),
    providers: z.object(providerShapes('patch')).strict().optional(),
  })
  .strict();
