/**
 * A Durable Object's alarm with its due time cached: most calls only need the alarm to fire
 * by some time it is already due before, so they never touch the alarm's storage.
 */
export class AlarmClock {
  /** When the alarm is due, as last read or set here; undefined until first read. */
  private dueAt: number | null | undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  /** Makes sure the alarm fires by `at`. */
  async wakeBy(at: number): Promise<void> {
    if (this.dueAt === undefined) this.dueAt = await this.storage.getAlarm();
    if (this.dueAt !== null && this.dueAt <= at) return;
    this.dueAt = at;
    await this.storage.setAlarm(at);
  }

  /** From inside the alarm handler (the fired alarm is gone): wakes next at `at`, or not at all when null. */
  async rearm(at: number | null): Promise<void> {
    this.dueAt = at;
    if (at !== null) await this.storage.setAlarm(at);
  }
}
