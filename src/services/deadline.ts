/**
 * A deadline on work the caller cannot cancel (a database query in flight): the caller stops
 * waiting once the time is up, so a hung query no longer holds a request.
 */

/** The work did not finish in time; each face answers it its own way (the API: a 503 problem). */
export class DeadlineExceeded extends Error {
  constructor(readonly ms: number) {
    super(`not finished within ${ms} ms`);
    this.name = 'DeadlineExceeded';
  }
}

/** `work`, or a DeadlineExceeded rejection once `ms` have passed (at once when `ms` <= 0). */
export async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (ms <= 0) throw new DeadlineExceeded(ms);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(ms)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
