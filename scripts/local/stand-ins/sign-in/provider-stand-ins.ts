/** The providers the local sign-in stand-in plays, in the picker's order: one line each. */
import { githubStandIn } from './github-stand-in';
import { googleStandIn } from './google-stand-in';
import type { ProviderStandIn } from './provider-stand-in';

/** Every provider's stand-in. */
export const PROVIDER_STAND_INS: readonly ProviderStandIn[] = [googleStandIn, githubStandIn];
