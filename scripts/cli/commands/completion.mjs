// @ts-check
/**
 * `tether completion bash|zsh|fish`: a completion script that asks the tool itself what fits at
 * the cursor (`tether __complete -- <words>`, lib/complete.mjs): commands, subcommands and options
 * from the command tree, the kinds a command takes, and the project's own service names, site
 * slugs and projects from the API. The scripts stay small and never go stale.
 */
import { createApi, dataOf } from '../lib/api.mjs';
import { candidates } from '../lib/complete.mjs';
import { loadSettings } from '../lib/config.mjs';
import { examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { catalogOf } from '../lib/kinds.mjs';
import { printJson } from '../lib/output.mjs';
import { listServices, projectOf } from '../lib/resolve.mjs';

/** @typedef {import('commander').Command} Command */

/**
 * How long a completion waits for the API: a slow answer offers nothing rather than a stuck
 * shell. 3 s, or `TETHER_COMPLETION_TIMEOUT_MS` (milliseconds) where the API is known to be slow.
 */
const LOOKUP_TIMEOUT_MS = Number(process.env.TETHER_COMPLETION_TIMEOUT_MS) || 3000;

const BASH = `# tether completion for bash (and zsh through bashcompinit)
_tether() {
  local IFS=$'\\n'
  COMPREPLY=( $("\${COMP_WORDS[0]}" __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) )
}
complete -o default -F _tether tether
`;

const SHELLS = /** @type {const} */ ({
  bash: BASH,
  zsh: `# tether completion for zsh\nautoload -U +X bashcompinit && bashcompinit\n${BASH}`,
  fish: `# tether completion for fish
complete -c tether -f -a '(tether __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`,
});

/**
 * Runs `read` against the API as the settings say, with `--project` as typed on the line;
 * anything that goes wrong (not logged in, no project, API down or slow) offers nothing.
 * @param {string | undefined} project
 * @param {(api: import('../lib/api.mjs').Api, project: string) => Promise<string[]>} read
 * @param {{ needsProject?: boolean }} [opts]
 * @returns {Promise<string[]>}
 */
async function quietly(project, read, opts = {}) {
  try {
    const settings = await loadSettings({ project });
    const api = createApi({ ...settings, timeoutMs: LOOKUP_TIMEOUT_MS });
    return await read(api, opts.needsProject === false ? '' : projectOf(settings));
  } catch {
    return [];
  }
}

/** @type {import('../lib/complete.mjs').Lookup} */
const apiLookup = {
  services: (kind, project) =>
    quietly(project, async (api, id) => (await listServices(api, id, kind)).map((s) => s.name)),
  sites: (project) =>
    quietly(project, async (api, id) => {
      const { sites } = await dataOf(api.GET('/api/v1/projects/{id}/sites', { params: { path: { id } } }));
      return sites.map((s) => s.slug);
    }),
  projects: () =>
    quietly(
      undefined,
      async (api) => (await dataOf(api.GET('/api/v1/projects'))).projects.map((p) => p.slug),
      { needsProject: false },
    ),
  engines: () =>
    quietly(undefined, async (api) => (await catalogOf(api)).engines.map((e) => e.engine), {
      needsProject: false,
    }),
};

/** @param {Command} program */
export function registerCompletion(program) {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .option('--json', 'print {shell, script} as JSON')
    .addHelpText(
      'after',
      `${examples([
        'tether completion bash > ~/.local/share/bash-completion/completions/tether',
        'source <(tether completion zsh)     # in ~/.zshrc',
        'tether completion fish > ~/.config/fish/completions/tether.fish',
      ])}`,
    )
    .action((/** @type {string} */ shell, /** @type {{ json?: boolean }} */ opts) => {
      if (!Object.hasOwn(SHELLS, shell))
        throw new UsageError(`unknown shell "${shell}": use bash, zsh or fish`);
      const script = SHELLS[/** @type {keyof typeof SHELLS} */ (shell)];
      if (opts.json) printJson({ shell, script });
      else process.stdout.write(script);
    });

  program
    .command('__complete', { hidden: true })
    .description('the words that fit at the cursor, one a line (what the completion scripts call)')
    .argument('[words...]', 'the words after `tether`, the last one being typed (after --)')
    .helpOption(false)
    .action(async (/** @type {string[]} */ words) => {
      const found = await candidates(program, words.length > 0 ? words : [''], apiLookup);
      if (found.length > 0) process.stdout.write(`${found.join('\n')}\n`);
    });
}
