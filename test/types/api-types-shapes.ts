/**
 * Type-level checks of the generated API types (types/api.d.ts), compiled by `tsc` (npm run
 * typecheck, and test/integration/api-types.test.ts): each `@ts-expect-error` line must fail to
 * compile, or tsc fails on the unused directive. Nothing here runs.
 */
import type { components, operations } from '../../types/api';

type TargetInput = components['schemas']['DeliveryTargetInput'];
type Delivery = components['schemas']['Delivery'];
type Jwks = operations['getByAppSlugWellKnownJwksJson']['responses'][200]['content']['application/json'];

/** Every target kind with its own fields compiles. */
export const targets: TargetInput[] = [
  { type: 'webhook', url: 'https://app.example.com/hook', secret: 'a-secret-of-16-chars' },
  { type: 'cloudflare', account_id: 'abc123', script_name: 'web', api_token: 't' },
  { type: 'vercel', project_id: 'prj_1', api_token: 't', environments: ['production'] },
  { type: 'fly', app_name: 'web', api_token: 't' },
];

// @ts-expect-error a misspelt field (`secrt`) of a webhook target
export const misspelt: TargetInput = { type: 'webhook', url: 'https://app.example.com/hook', secrt: 'x' };

// @ts-expect-error Fly's field on a Cloudflare target
export const wrongKind: TargetInput = { type: 'cloudflare', app_name: 'web', api_token: 't' };

// @ts-expect-error a Vercel target without its environments
export const incomplete: TargetInput = { type: 'vercel', project_id: 'prj_1', api_token: 't' };

// @ts-expect-error a kind that does not exist
export const unknownKind: TargetInput = { type: 'netlify', api_token: 't' };

/** Narrowing on `type` reaches the kind's own fields. */
export function accountOf(target: TargetInput): string | undefined {
  return target.type === 'cloudflare' ? target.account_id : undefined;
}

/** Delivery.reason is the enum of docs/contract.md §6, `variables` and `sync` included. */
export const reasons: Delivery['reason'][] = ['connect', 'variables', 'sync'];

// @ts-expect-error a reason the contract does not list
export const badReason: Delivery['reason'] = 'deploy';

/** The JWKS keys are typed: an ES256 P-256 key. */
export const curveOf = (jwks: Jwks): 'P-256' | undefined => jwks.keys[0]?.crv;

// @ts-expect-error a JWK field the keys do not have
export const noSuchField = (jwks: Jwks): unknown => jwks.keys[0]?.n;
