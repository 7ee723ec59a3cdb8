/** Types of shell-safe-env.mjs (the dotenv writer the Worker and the CLI share). */

/** Variables that make a program load code of their choosing (docs/contract.md §9). */
export declare const LOADER_VARIABLES: readonly [
  'NODE_OPTIONS',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'DYLD_*',
  'BASH_ENV',
  'ENV',
  'PYTHONSTARTUP',
  'PERL5OPT',
  'RUBYOPT',
  'PATH',
];
/** Whether `name` is a loader variable (`DYLD_*`: every name so starting). */
export declare function isLoaderVariable(name: string): boolean;
/** The here-document delimiter that hides dotenv-only entries from shells. */
export declare const DOTENV_ONLY: 'TETHER_DOTENV_ONLY';
/** The form of one value in a line of its own for dotenv, or undefined when it needs the file tail. */
export declare function encodeValue(value: string): string | undefined;
/** The dotenv text of `vars` a shell may source, the names a shell leaves unset, and those left out. */
export declare function shellSafeDotenv(
  vars: Record<string, string>,
  header?: string[],
): { text: string; dotenvOnly: string[]; failed: string[] };
