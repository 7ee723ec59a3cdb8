// @ts-check
/**
 * What a shell offers at the cursor, worked out here rather than in each shell's script: the
 * command tree gives commands, subcommands and options; a `<kind>` argument takes the kinds its
 * description names; a service's name (after a kind, or under `db`, `bucket` and `auth`) and
 * `--site`/`--project` values are the project's own, read from the API. Nothing here may fail
 * a completion: a lookup that cannot be made offers nothing.
 */
import { KIND_LIST, KINDS } from './kinds.mjs';
import { kindLabel, parseKind } from './resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('commander').Option} Option
 * @typedef {import('./types.mjs').Kind} Kind
 * @typedef {{
 *   services(kind: Kind, project: string | undefined): Promise<string[]>,
 *   sites(project: string | undefined): Promise<string[]>,
 *   projects(): Promise<string[]>,
 *   engines(): Promise<string[]>,
 * }} Lookup the project's own names; `project` is the `--project` typed on the line, if any
 */

/** The kinds as typed, in the order shown. */
const KIND_WORDS = KIND_LIST.map(kindLabel);

/** The group commands whose subcommands' `<name>` (or `<app_id>`) is a service of one kind. */
const GROUP_KIND = /** @type {Record<string, Kind>} */ (
  Object.fromEntries(KIND_LIST.map((k) => [KINDS[k].group, k]))
);

/** Values of options whose values are a fixed few. */
const OPTION_VALUES = /** @type {Record<string, string[]>} */ ({
  '--format': ['dotenv', 'json', 'shell'],
  '--role': ['read', 'write', 'admin', 'owner'],
});

/**
 * @param {string} word as typed
 * @returns {Kind | undefined}
 */
function kindOf(word) {
  try {
    return parseKind(word);
  } catch {
    return undefined;
  }
}

/**
 * The option `word` names on `cmd` or the program above it (`--site`, `-p`, `--out=x`).
 * @param {Command} cmd
 * @param {string} word
 * @returns {Option | undefined}
 */
function optionNamed(cmd, word) {
  const flag = word.split('=')[0];
  for (let c = /** @type {Command | null} */ (cmd); c; c = c.parent) {
    const found = c.options.find((o) => o.long === flag || o.short === flag);
    if (found) return found;
  }
  return undefined;
}

/**
 * The long options offered on `cmd`: its own, the program's, and `--help`.
 * @param {Command} cmd
 */
function optionsOf(cmd) {
  const all = new Set(['--help']);
  for (let c = /** @type {Command | null} */ (cmd); c; c = c.parent)
    for (const o of c.options) if (o.long) all.add(o.long);
  return [...all];
}

/**
 * What a positional argument of `cmd` takes at `index`, given the positionals before it.
 * @param {Command} cmd
 * @param {number} index
 * @param {string[]} before
 * @param {Lookup} lookup
 * @param {string | undefined} project
 * @returns {Promise<string[]>}
 */
async function argumentValues(cmd, index, before, lookup, project) {
  const args = cmd.registeredArguments;
  const arg = args[index];
  if (!arg) return [];
  const name = arg.name();
  if (name === 'kind') return KIND_WORDS.filter((k) => (arg.description ?? '').includes(k));
  if (name === 'shell') return ['bash', 'zsh', 'fish'];
  const kindAt = args.findIndex((a) => a.name() === 'kind');
  if (kindAt >= 0 && kindAt === index - 1 && (name === 'name' || name === 'db')) {
    const kind = kindOf(before[kindAt] ?? '');
    return kind ? lookup.services(kind, project) : [];
  }
  // What a create command names is new: nothing of the project's fits it.
  if (cmd.name() === 'create') return [];
  const group = cmd.parent ? GROUP_KIND[cmd.parent.name()] : undefined;
  if (kindAt < 0 && index === 0 && group && ['name', 'db', 'app_id'].includes(name))
    return lookup.services(group, project);
  if (name === 'slug' && cmd.parent?.name() === 'sites') return lookup.sites(project);
  return [];
}

/**
 * The candidates for the last of `words` (the words after `tether`, the last one being typed,
 * possibly empty), each starting with what is typed.
 * @param {Command} program
 * @param {string[]} words
 * @param {Lookup} lookup
 * @returns {Promise<string[]>}
 */
export async function candidates(program, words, lookup) {
  const current = words.at(-1) ?? '';
  let cmd = program;
  /** @type {string[]} */
  const positionals = [];
  /** @type {Option | undefined} */
  let awaiting;
  /** @type {string | undefined} */
  let project;
  for (const word of words.slice(0, -1)) {
    if (awaiting) {
      if (awaiting.long === '--project') project = word;
      awaiting = undefined;
    } else if (word === '--') {
      return [];
    } else if (word.startsWith('-')) {
      const option = optionNamed(cmd, word);
      if (option && (option.required || option.optional) && !word.includes('=')) awaiting = option;
      else if (option?.long === '--project') project = word.slice(word.indexOf('=') + 1);
    } else {
      const sub = positionals.length === 0 ? cmd.commands.find((c) => c.name() === word) : undefined;
      if (sub) cmd = sub;
      else positionals.push(word);
    }
  }
  /** @type {string[]} */
  let offered = [];
  if (awaiting?.long === '--site') offered = await lookup.sites(project);
  else if (awaiting?.long === '--project') offered = await lookup.projects();
  else if (awaiting?.long === '--engine') offered = await lookup.engines();
  else if (awaiting?.long === '--level') {
    const kind = kindOf(positionals[0] ?? '');
    offered = kind ? [...KINDS[kind].levels] : [];
  } else if (awaiting) offered = OPTION_VALUES[awaiting.long ?? ''] ?? [];
  else if (current.startsWith('-')) offered = optionsOf(cmd);
  else {
    const subs = positionals.length === 0 ? cmd.commands.filter((c) => !hidden(c)).map((c) => c.name()) : [];
    offered = [...subs, ...(await argumentValues(cmd, positionals.length, positionals, lookup, project))];
  }
  return offered.filter((w) => w.startsWith(current));
}

/**
 * Whether `cmd` is left out of help and completion.
 * @param {Command} cmd
 */
function hidden(cmd) {
  return /** @type {{ _hidden?: boolean }} */ (/** @type {unknown} */ (cmd))._hidden === true;
}
