/**
 * Runs a command in process in another time zone: Node reads TZ again whenever it changes, so
 * the zone is the process's for as long as `run` lasts, and the one before is put back after.
 */
export async function inZone<T>(tz: string, run: () => Promise<T>): Promise<T> {
  const saved = process.env.TZ;
  process.env.TZ = tz;
  try {
    return await run();
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
}
