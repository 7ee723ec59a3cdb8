import type { ApiKeyCapabilities } from '../../../db/schema';

/** The caller of a management route. */
export type Principal =
  | { type: 'anonymous' }
  | { type: 'invalid' }
  | { type: 'operator' }
  | {
      type: 'account';
      accountId: string;
      tokenId: string;
      via: 'token' | 'session';
      /** A read-only personal token: every write is 403. */
      readOnly?: boolean;
    }
  | {
      type: 'api_key';
      keyId: string;
      projectId: string;
      capabilities: ApiKeyCapabilities;
      siteId: string | null;
    };
