// @ts-check
/**
 * `tether <kind> create|list|delete` for a kind the server registers and the tool has no command
 * of its own for: its word, plural, creation fields and services' route come from the catalog
 * (GET /api/v1/kinds), read only when the command line's first word is no command the tool has,
 * and only signed in. Its `create` takes each creation field as an option (`max_memory_mb` is
 * `--max-memory-mb <value>`; a yes/no field is `--name` or `--no-name`).
 */
import { Option } from 'commander';
import { createApi } from '../lib/api.mjs';
import { loadSettings } from '../lib/config.mjs';
import { contextOf, examples } from '../lib/context.mjs';
import { catalogOf, kindServedAs, servedCalls, servedKindNamed } from '../lib/kinds.mjs';
import { printJson, printTable, say, when, withProgress } from '../lib/output.mjs';
import { confirm } from '../lib/prompt.mjs';
import { projectOf, resolveService } from '../lib/resolve.mjs';

/**
 * @typedef {import('commander').Command} Command
 * @typedef {import('../lib/kinds.mjs').ServedKind} ServedKind
 * @typedef {import('../lib/kinds.mjs').CreationField} CreationField
 */

/**
 * How long the catalog may take before a word is left an unknown command: a mistyped command
 * with the server out of reach is told so in seconds, not after a request's full timeout.
 */
const CATALOG_TIMEOUT_MS = 5_000;

/** Global options that take a value, so the word after them is not the command's. */
const VALUED = new Set(['-p', '--project']);

/**
 * The command word of `args` (the command line after the program): the first that is no option
 * or an option's value.
 * @param {string[]} args
 */
function commandWord(args) {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (VALUED.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/**
 * Adds the command group of the kind the command line's first word names, when the tool has no
 * command of that name and the server registers such a kind with services of its own to make.
 * Signed out, or with the server away, it adds nothing: the word is then an unknown command.
 * @param {Command} program
 * @param {string[]} argv the process's arguments
 */
export async function registerServedKind(program, argv) {
  const word = commandWord(argv.slice(2));
  if (
    !word ||
    word === 'help' ||
    program.commands.some((c) => c.name() === word || c.aliases().includes(word))
  )
    return;
  /** @type {ServedKind[]} */
  let catalog;
  try {
    const settings = await loadSettings({ project: undefined });
    catalog = (await catalogOf(createApi({ ...settings, timeoutMs: CATALOG_TIMEOUT_MS }))).kinds;
  } catch {
    return;
  }
  const served = servedKindNamed(catalog, word);
  if (!served?.creation_fields) return;
  // Known to the tool from here on, as `connect` knows it: names resolve through its listing.
  kindServedAs(catalog, word);
  addKindCommands(program, word, served, served.creation_fields);
}

/**
 * The option of creation field `field`.
 * @param {CreationField} field
 */
function fieldOption(field) {
  const flag = field.name.replaceAll('_', '-');
  const bounds =
    field.minimum !== undefined || field.maximum !== undefined
      ? `, ${field.minimum ?? '…'} to ${field.maximum ?? '…'}`
      : '';
  const said = `${field.name.replaceAll('_', ' ')} (${field.type}${bounds}${field.required ? '' : ', optional'})`;
  const option = new Option(`--${flag} <value>`, said);
  if (field.choices) option.choices(field.choices);
  if (field.required) option.makeOptionMandatory();
  return option;
}

/**
 * The body of a create from its options: a number field's text as a number (text that is none
 * stays text, for the API to refuse by name), a yes/no field as true or false, an unset one left out.
 * @param {CreationField[]} fields
 * @param {Record<string, unknown>} opts
 * @param {Command} cmd
 */
function creationBody(fields, opts, cmd) {
  /** @type {Record<string, unknown>} */
  const body = {};
  for (const field of fields) {
    const option = cmd.options.find((o) => o.long === `--${field.name.replaceAll('_', '-')}`);
    const value = option ? opts[option.attributeName()] : undefined;
    if (value === undefined) continue;
    if (field.type === 'number' || field.type === 'integer') {
      const n = Number(value);
      body[field.name] = Number.isFinite(n) && String(value).trim() !== '' ? n : value;
    } else body[field.name] = value;
  }
  return body;
}

/**
 * `tether <word> create|list|delete` for served kind `served`.
 * @param {Command} program
 * @param {string} word
 * @param {ServedKind} served
 * @param {CreationField[]} fields
 */
function addKindCommands(program, word, served, fields) {
  const { noun, plural } = served;
  /** @param {Command} cmd */
  const scope = async (cmd) => {
    const ctx = await contextOf(cmd);
    const project = projectOf(ctx.settings);
    return { ctx, project, calls: servedCalls(ctx.api(), served, project) };
  };
  const group = program
    .command(word)
    .description(`${plural} (create, list, delete)`)
    .addHelpText(
      'after',
      examples([`tether ${word} create main`, `tether ${word} ls`, `tether ${word} delete main --yes`]),
    );

  const create = group
    .command('create')
    .description(`create a ${noun} (connected at once when the project has exactly one site)`)
    .argument('<name>', `the ${noun}'s name`);
  for (const field of fields) {
    if (field.type === 'boolean') {
      const flag = field.name.replaceAll('_', '-');
      create.addOption(new Option(`--${flag}`, `${field.name.replaceAll('_', ' ')}: yes`));
      create.addOption(new Option(`--no-${flag}`, `${field.name.replaceAll('_', ' ')}: no`));
    } else create.addOption(fieldOption(field));
  }
  create
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {string} */ name, /** @type {Record<string, unknown>} */ opts, cmd) => {
      const { project, calls } = await scope(cmd);
      const body = { name, ...creationBody(fields, opts, cmd) };
      const created = await withProgress(`Creating ${noun} ${name}`, () => calls.create(body));
      if (opts.json) return printJson(created);
      say(`Created ${noun} ${created.name} in project ${project}.`);
    });

  group
    .command('list')
    .alias('ls')
    .description(`list the project's ${plural}`)
    .option('--json', 'print the API answer as JSON')
    .action(async (/** @type {{ json?: boolean }} */ opts, cmd) => {
      const { project, calls } = await scope(cmd);
      const services = await calls.list();
      if (opts.json) return printJson({ [served.services_path.replaceAll('-', '_')]: services });
      if (services.length === 0)
        return say(`Project ${project} has no ${plural}: tether ${word} create <name>`);
      const columns = Object.keys(services[0] ?? {}).filter((c) => !['id', 'name', 'created_at'].includes(c));
      printTable(
        ['NAME', ...columns.map((c) => c.replaceAll('_', ' ').toUpperCase()), 'CREATED'],
        services.map((s) => [s.name, ...columns.map((c) => String(s[c] ?? '')), when(s.created_at)]),
      );
    });

  group
    .command('delete')
    .description(`delete a ${noun} and its connections (asks first; --yes without a terminal)`)
    .argument('<name>', `the ${noun}'s name`)
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the API answer as JSON')
    .action(
      async (/** @type {string} */ name, /** @type {{ yes?: boolean, json?: boolean }} */ opts, cmd) => {
        const { ctx, project, calls } = await scope(cmd);
        const kind = /** @type {import('../lib/types.mjs').Kind} */ (served.kind);
        const found = await resolveService(ctx.api(), ctx.settings, kind, name);
        await confirm(
          `Delete ${noun} ${found.name} of project ${project}`,
          'Every connection to it is removed.',
          opts,
        );
        await withProgress(`Deleting ${noun} ${found.name}`, () => calls.remove(found.id));
        if (opts.json) return printJson({ deleted: true });
        say(`Deleted ${noun} ${found.name}.`);
      },
    );
}
