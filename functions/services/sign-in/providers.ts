/** The registered sign-in providers: adding one is its own file plus a line here. */
import type { Provider } from './apps';
import { github } from './github';
import { google } from './google';
import type { SignInProvider } from './provider';

/** Every provider of the browser flow, by the name used in paths and settings. */
export const PROVIDERS: Record<Provider, SignInProvider> = { google, github };

/** The providers' names, in a fixed order (for schemas and loops). */
export const PROVIDER_NAMES = ['google', 'github'] as const satisfies readonly Provider[];
