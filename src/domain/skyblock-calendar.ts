/**
 * The SkyBlock calendar: year 1 began 2019-06-11 17:55 UTC; a year is 12 months of 31 days of
 * 20 real minutes (124 hours). Elections close on Late Spring 27 (day 88 of 372), when the new
 * mayor takes office; the next election opens on Late Summer 27 (day 181). A mayor elected in
 * year Y's election serves from Late Spring 27 of year Y to Late Spring 27 of year Y + 1.
 *
 * The year length is a parameter because the demo's simulator compresses it; the proportions hold.
 */

export const SKYBLOCK_EPOCH_MS = Date.UTC(2019, 5, 11, 17, 55, 0);
export const SKYBLOCK_YEAR_MS = 124 * 3_600_000;
export const SKYBLOCK_DAYS_PER_YEAR = 372;
/** Late Spring 27 as a day of the year counted from 0 (months before: 2 × 31, then 26 days). */
export const TERM_START_DAY = 88;
/** Late Summer 27: the booth opens for the next election. */
export const ELECTION_OPEN_DAY = 181;

/** The SkyBlock year (1-based) containing `ms`. */
export function skyblockYear(ms: number, yearMs = SKYBLOCK_YEAR_MS): number {
  return Math.floor((ms - SKYBLOCK_EPOCH_MS) / yearMs) + 1;
}

/** When the SkyBlock year `year` began. */
export function yearStart(year: number, yearMs = SKYBLOCK_YEAR_MS): number {
  return SKYBLOCK_EPOCH_MS + (year - 1) * yearMs;
}

function dayOffset(day: number, yearMs: number): number {
  return Math.round((yearMs * day) / SKYBLOCK_DAYS_PER_YEAR);
}

/** When the mayor elected in year `year`'s election takes office (Late Spring 27 of that year). */
export function termStart(year: number, yearMs = SKYBLOCK_YEAR_MS): number {
  return yearStart(year, yearMs) + dayOffset(TERM_START_DAY, yearMs);
}

/** When that mayor leaves office: the next term's start. */
export function termEnd(year: number, yearMs = SKYBLOCK_YEAR_MS): number {
  return termStart(year + 1, yearMs);
}

/** The election year whose mayor is in office at `ms`. */
export function termYearAt(ms: number, yearMs = SKYBLOCK_YEAR_MS): number {
  return Math.floor((ms - SKYBLOCK_EPOCH_MS - dayOffset(TERM_START_DAY, yearMs)) / yearMs) + 1;
}

/** How far (0 ≤ f < 1) into the current mayor's term `ms` lies. */
export function termProgress(ms: number, yearMs = SKYBLOCK_YEAR_MS): number {
  const year = termYearAt(ms, yearMs);
  return (ms - termStart(year, yearMs)) / yearMs;
}

/** The share of a term after which the next election is open (Late Summer 27 onwards). */
export const ELECTION_OPEN_PROGRESS = (ELECTION_OPEN_DAY - TERM_START_DAY) / SKYBLOCK_DAYS_PER_YEAR;
