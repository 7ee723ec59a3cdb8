/** Name checks shared by databases, buckets and auth apps: exact duplicates and variable-form collisions. */

import { variableName } from '../../domain/names';
import { ApiError } from '../../lib/errors';

/**
 * Refuses a name that is taken, or whose variable form (`<NAME>`) equals that of a service
 * whose variables it would share (same kind, and for databases the same engine).
 */
export function assertNameFree(
  name: string,
  taken: string[],
  sharingVariables: string[],
  what: string,
  field = 'name',
): void {
  if (taken.includes(name))
    throw new ApiError('CONFLICT', `a ${what} named ${name} already exists in this project`);
  const form = variableName(name);
  const clash = sharingVariables.find((t) => variableName(t) === form);
  if (clash) {
    throw new ApiError(
      'NAME_CONFLICT',
      `${what} ${field} ${name} maps to the same variable names (${form}) as ${clash}; choose another ${field}`,
      field,
    );
  }
}
