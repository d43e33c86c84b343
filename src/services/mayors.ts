/**
 * Mayor terms (`/api/mayor`): the stored election resources (one per election year, as ingestion
 * last saw it) with their terms placed on the SkyBlock calendar.
 */
import type { Clock } from '../clock.ts';
import { electionPeriod, type ElectionPeriod } from '../domain/elections.ts';
import { termEnd, termStart, termYearAt } from '../domain/skyblock-calendar.ts';
import type { ElectionRecord, ElectionRepository } from '../store/repositories/elections.ts';

/** At most this many periods per answer: about seven real years of terms. */
export const MAX_PERIODS = 500;

/** What the mayors read: the stored elections. */
export interface MayorsStore {
  readonly elections: Pick<ElectionRepository, 'byYear' | 'inYears'>;
}

export class MayorsService {
  constructor(
    private readonly store: MayorsStore,
    private readonly clock: Clock,
    /** the SkyBlock year's length (the demo compresses it) */
    private readonly yearMs: number,
  ) {}

  /** Terms that overlap [from, to] (default: up to now), oldest first, at most MAX_PERIODS (the newest). */
  async periods(from: number | undefined, to: number | undefined): Promise<ElectionPeriod[]> {
    const last = termYearAt(to ?? this.clock.now(), this.yearMs);
    const first = from === undefined ? last - MAX_PERIODS + 1 : Math.max(termYearAt(from, this.yearMs), last - MAX_PERIODS + 1);
    const records = await this.store.elections.inYears(first, last, MAX_PERIODS);
    return records.map((r) => this.periodOf(r));
  }

  /** The term of election `year`, or undefined when that election was never stored. */
  async period(year: number): Promise<ElectionPeriod | undefined> {
    const record = await this.store.elections.byYear(year);
    return record && this.periodOf(record);
  }

  private periodOf(r: ElectionRecord): ElectionPeriod {
    return electionPeriod(r, termStart(r.year, this.yearMs), termEnd(r.year, this.yearMs));
  }
}
