/** The request and response bodies of the auth app routes (routes/auth-apps.ts). */
import { ANDROID_PACKAGE_RE, IOS_APP_ID_RE } from '../domain/app-links';
import { z } from '../lib/openapi';
import { allProviders } from '../use-cases/sign-in/providers/provider-registry';
import { UserSchema } from './oauth/oauth-shared';

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
        'accept only ID tokens bound to a nonce issued by POST {auth_url}/v1/{app_id}/oauth/nonce (contract §9)',
    }),
    app_links: z
      .object({ ios_app_ids: z.array(z.string()), android_package_names: z.array(z.string()) })
      .openapi({
        description:
          "the mobile apps whose verified links (universal links, Android App Links) may be redirect origins: `ios_app_ids` (Apple app IDs, `<Team ID>.<bundle ID>`) and `android_package_names`. While either names an app, every https origin of `allowed_origins` must serve `/.well-known/apple-app-site-association` listing one of the iOS app IDs in `applinks.details[].appIDs` and `/.well-known/assetlinks.json` with a `delegate_permission/common.handle_all_urls` statement for one of the packages, with 200 and no redirect (fetched from the operator's `ASSOCIATION_FILES_URL` instead when set); empty lists make https origins plain web origins",
      }),
    providers: z.object(providerShapes('view')),
    auth_url: z.string().openapi({
      description:
        "`{auth_url}` (docs/contract.md §1): the auth service's address, PUBLIC_AUTH_URL; every app's routes are under `{auth_url}/v1/{app_id}`",
    }),
    issuer: z.string().openapi({
      description:
        "`{auth_url}/v1/{app_id}`: where this app's routes live (`{issuer}/auth/google`, `{issuer}/oauth/exchange`, …), the `iss` of its tokens and the value of SERVICE_AUTH_URL",
    }),
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
      .openapi({
        description:
          "a list left out keeps its value. A PATCH that adds an https origin checks that origin's association files, and one that changes the apps checks every https origin again, before anything is written: 400 `VALIDATION_FAILED` with `field` `allowed_origins[i]` naming the origin, the file and what it lacks",
      }),
    providers: z.object(providerShapes('patch')).strict().optional(),
  })
  .strict();
