// @ts-check
/**
 * `tether completion bash|zsh|fish`: a completion script made from the command tree itself,
 * so it names every command, subcommand and option there is (and nothing that is not).
 */
import { examples } from '../lib/context.mjs';
import { UsageError } from '../lib/errors.mjs';
import { printJson } from '../lib/output.mjs';

/** @typedef {import('commander').Command} Command */

/**
 * A command's long options, `--help` included.
 * @param {Command} cmd
 */
const optionsOf = (cmd) => [...cmd.options.map((o) => o.long).filter((l) => typeof l === 'string'), '--help'];

/**
 * Every command path with its subcommands and options: `''` is the program itself.
 * @param {Command} program
 * @returns {Map<string, { subs: string[], options: string[] }>}
 */
function commandTree(program) {
  /** @type {Map<string, { subs: string[], options: string[] }>} */
  const tree = new Map();
  /**
   * @param {Command} cmd
   * @param {string} path
   */
  const walk = (cmd, path) => {
    tree.set(path, { subs: cmd.commands.map((c) => c.name()), options: optionsOf(cmd) });
    for (const sub of cmd.commands) walk(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  walk(program, '');
  return tree;
}

/**
 * @param {Command} program
 */
function bashScript(program) {
  const tree = commandTree(program);
  const cases = [...tree.entries()]
    .filter(([path]) => path !== '')
    .map(([path, { subs, options }]) => `    '${path}') words='${[...subs, ...options].join(' ')}' ;;`)
    .join('\n');
  const top = tree.get('') ?? { subs: [], options: [] };
  return `# tether completion for bash (and zsh through bashcompinit)
_tether() {
  local cur path i w words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  path=''
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case " $(_tether_words "$path") " in *" $w "*) path="\${path:+$path }$w" ;; esac
  done
  words="$(_tether_words "$path")"
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
_tether_words() {
  local words
  case "$1" in
    '') words='${[...top.subs, ...top.options].join(' ')}' ;;
${cases}
  esac
  printf '%s' "$words"
}
complete -o default -F _tether tether
`;
}

/** @param {Command} program */
function zshScript(program) {
  return `# tether completion for zsh
autoload -U +X bashcompinit && bashcompinit
${bashScript(program)}`;
}

/** @param {Command} program */
function fishScript(program) {
  const tree = commandTree(program);
  const lines = ['# tether completion for fish', 'complete -c tether -f'];
  for (const [path, { subs, options }] of tree) {
    const words = path === '' ? [] : path.split(' ');
    const last = words.at(-1);
    const condition =
      path === ''
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${last}${words.length > 1 ? ` && __fish_seen_subcommand_from ${words[0]}` : ''}`;
    if (subs.length > 0) lines.push(`complete -c tether -n '${condition}' -a '${subs.join(' ')}'`);
    for (const option of options)
      lines.push(`complete -c tether -n '${condition}' -l ${option.replace(/^--/, '')}`);
  }
  return `${lines.join('\n')}\n`;
}

const SHELLS = /** @type {const} */ ({ bash: bashScript, zsh: zshScript, fish: fishScript });

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
      const script = SHELLS[/** @type {keyof typeof SHELLS} */ (shell)](program);
      if (opts.json) printJson({ shell, script });
      else process.stdout.write(script);
    });
}
