/** The request and response bodies of the auth app routes (routes/auth-apps.ts). */
import { z } from '../lib/openapi';
import { UserSchema } from './oauth/shared';

const ProviderView = { enabled: z.boolean(), client_id: z.string(), client_secret_set: z.boolean() };
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
    providers: z.object({
      google: z
        .object({
          ...ProviderView,
          native_client_ids: z.object({ ios: z.string(), android: z.string() }).partial().optional(),
          skip_nonce_check: z.boolean().openapi({
            description:
              "accept a token's nonce without one in the request (iOS SDKs that set their own); off by default",
          }),
        })
        .optional(),
      github: z.object(ProviderView).optional(),
    }),
    auth_url: z.string(),
    created_at: z.string(),
  })
  .openapi('AuthApp');

export const AdminUserSchema = UserSchema.extend({ disabled: z.boolean() }).openapi('AuthAppUser');

const clientId = z.string().trim().min(1).max(512);
const clientSecret = z.string().min(1).max(1024);
const nativeId = z.string().trim().min(1).max(512).nullable();

export const PatchSchema = z
  .object({
    name: z.string().trim().min(1).max(100).nullable().optional(),
    enabled: z.boolean().optional(),
    allowed_origins: z.array(z.string().max(2048)).max(50).optional(),
    user_limit: z.number().int().min(0).max(100_000_000).nullable().optional(),
    require_issued_nonce: z.boolean().optional(),
    providers: z
      .object({
        google: z
          .object({
            enabled: z.boolean().optional(),
            client_id: clientId.optional(),
            client_secret: clientSecret.optional(),
            native_client_ids: z
              .object({ ios: nativeId.optional(), android: nativeId.optional() })
              .strict()
              .optional(),
            skip_nonce_check: z.boolean().optional(),
          })
          .strict()
          .nullable()
          .optional(),
        github: z
          .object({
            enabled: z.boolean().optional(),
            client_id: clientId.optional(),
            client_secret: clientSecret.optional(),
          })
          .strict()
          .nullable()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
