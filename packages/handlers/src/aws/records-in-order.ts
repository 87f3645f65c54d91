// Runs the records of one SQS batch so that those of one cluster go one after the other, in batch order, while
// different clusters go in parallel: two deliveries of one step in a batch then never run side by side (the
// second finds the record moved on), and no record waits on another cluster's.

/** Wraps a record handler; `groupOf` names a record's cluster (undefined: not tied to any, runs at once). */
export function recordsInOrder<R extends object, T>(
  records: readonly R[],
  groupOf: (record: R) => string | undefined,
  run: (record: R) => Promise<T>,
): (record: R) => Promise<T> {
  // Each record waits for the one before it in its group, decided up front from the batch's order, so the
  // order in which a batch processor starts the records does not matter.
  const after = new Map<R, Promise<unknown>>();
  const tails = new Map<string, Promise<unknown>>();
  const finished = new Map<R, (value: unknown) => void>();
  for (const record of records) {
    const group = groupOf(record);
    if (group === undefined) continue;
    after.set(record, tails.get(group) ?? Promise.resolve());
    tails.set(group, new Promise((resolve) => finished.set(record, resolve)));
  }
  return async (record) => {
    await after.get(record);
    try {
      return await run(record);
    } finally {
      finished.get(record)?.(undefined);
    }
  };
}
