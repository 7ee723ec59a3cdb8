import { describe, expect, it } from 'vitest';
import { CONNECTION_LEVELS, DELIVERY_REASONS } from '../../db/schema';
import { LEVELS } from '../../functions/domain/levels';
import { PATCH_REASONS } from '../../functions/domain/patch-reasons';

describe('the stored vocabulary', () => {
  it("a connection's level column takes exactly the levels of every kind", () => {
    expect([...CONNECTION_LEVELS].sort()).toEqual(Object.values(LEVELS).flat().sort());
  });

  it("a delivery's reason column takes exactly the patch reasons", () => {
    expect([...DELIVERY_REASONS].sort()).toEqual([...PATCH_REASONS].sort());
  });
});
