/**
 * The order vitest starts test files in: within a project, longest first by
 * test/file-durations.json (files it does not know yet before all), so the long files are not
 * left for the end and two heavy neighbours by name are not paired by chance. vitest's own
 * sequencer orders by the durations of earlier runs on this machine, which a fresh clone lacks
 * (it falls back to file size; the in-process project then took 310 s rather than 191 s).
 * A project's files stay together: vitest hands a worker that shares its modules between files
 * (`isolate: false`) the next file only when that file is of the same project. Projects run in
 * {@link PROJECT_ORDER}: those of few long files first, the many short files of `in-process`
 * last, so the run ends on short files rather than on a long one beside idle workers.
 * `npm run test:durations` refreshes the table from vitest's record of the last runs.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { CRON_PROJECT } from './cron-files';
import { IN_PROCESS_PROJECT } from './in-process-files';

/** The projects in the order they run; one not named here runs after them. */
export const PROJECT_ORDER = ['integration-proxied', CRON_PROJECT, 'integration', 'unit', IN_PROCESS_PROJECT];

/** `<project>:<file>` to milliseconds. */
const DURATIONS: Record<string, number> = JSON.parse(
  readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'),
);

/** A project's place in {@link PROJECT_ORDER}. */
function rank(project: string): number {
  const at = PROJECT_ORDER.indexOf(project);
  return at === -1 ? PROJECT_ORDER.length : at;
}

/** Longest first by test/file-durations.json, projects in {@link PROJECT_ORDER}, groups as vitest orders them. */
export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const duration = (spec: TestSpecification): number | undefined =>
      DURATIONS[`${spec.project.name}:${relative(root, spec.moduleId)}`];
    return [...files].sort((a, b) => {
      const order = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (order !== 0) return order;
      if (a.project.name !== b.project.name)
        return rank(a.project.name) - rank(b.project.name) || (a.project.name < b.project.name ? -1 : 1);
      const [da, db] = [duration(a), duration(b)];
      if (da === undefined || db === undefined) return da === db ? 0 : da === undefined ? -1 : 1;
      return db - da;
    });
  }
}
