import { describe, expect, it } from 'vitest';
import { CONNECTION_LEVELS } from '../../db/schema';
import { LEVELS } from '../../functions/domain/levels';

describe('the stored vocabulary', () => {
  it("a connection's level column takes exactly the levels of every kind", () => {
    expect([...CONNECTION_LEVELS].sort()).toEqual(Object.values(LEVELS).flat().sort());
  });
});
