/**
 * The sign-in providers, by name. A provider is one module satisfying SignInProvider; this
 * registry is the only list of them. Routes, the auth app schemas, the console and the CLI's
 * listing read it, so adding a provider is its module plus a line here (or, in tests,
 * registerProvider before the Worker's routes are built).
 */
import { apple } from './apple';
import { github } from './github';
import { google } from './google';
import type { SignInProvider } from './provider';

const registry = new Map<string, SignInProvider>();

/** Adds `provider` to the registry (a name may be registered once). */
export function registerProvider(provider: SignInProvider): void {
  if (registry.has(provider.name)) throw new Error(`sign-in provider ${provider.name} is registered twice`);
  registry.set(provider.name, provider);
}

for (const provider of [google, github, apple]) registerProvider(provider);

/** The provider named `name`, or undefined. */
export const providerNamed = (name: string): SignInProvider | undefined => registry.get(name);

/** Every registered provider, in registration order. */
export const allProviders = (): SignInProvider[] => [...registry.values()];
