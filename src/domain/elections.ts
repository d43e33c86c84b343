/** Reading the election resource (resources/skyblock/election) the ingester stores as is. */

/** The leading candidate of an open election in an election resource payload, else null. */
export function electionLeader(payload: Record<string, unknown>): string | null {
  const current = payload['current'] as { candidates?: Array<{ name?: unknown; votes?: unknown }> } | undefined;
  const candidates = current?.candidates;
  if (!Array.isArray(candidates) || candidates.length === 0) return null;
  let best: { name: string; votes: number } | null = null;
  for (const c of candidates) {
    if (typeof c.name !== 'string') continue;
    const votes = typeof c.votes === 'number' ? c.votes : 0;
    if (!best || votes > best.votes) best = { name: c.name, votes };
  }
  return best?.name ?? null;
}

export interface MayorPerk {
  name: string;
  description: string;
  /** whether this perk is the one the candidate brings as minister */
  minister: boolean;
}

export interface MayorCandidate {
  key: string;
  name: string;
  perks: MayorPerk[];
  votes: number;
}

export interface MinisterInfo {
  key: string;
  name: string;
  /** the perk the minister brings: always a minister perk (`minister: true`, as the established shape requires it) */
  perk: MayorPerk | null;
}

/** One mayor's term in the established service's shape (`ElectionPeriod`). */
export interface ElectionPeriod {
  year: number;
  /** term start and end, ISO-8601 (Late Spring 27 of `year` and of `year + 1`) */
  start: string;
  end: string;
  id: string;
  winner: MayorCandidate & { minister: MinisterInfo | null };
  candidates: MayorCandidate[];
}

export interface StoredElection {
  year: number;
  mayorKey: string;
  mayorName: string;
  payload: Record<string, unknown>;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const record = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function perksOf(v: unknown): MayorPerk[] {
  if (!Array.isArray(v)) return [];
  return v.map((p) => {
    const r = record(p);
    return { name: text(r['name']), description: text(r['description']), minister: r['minister'] === true };
  });
}

function candidateOf(v: unknown): MayorCandidate {
  const r = record(v);
  const votes = typeof r['votes'] === 'number' && Number.isFinite(r['votes']) ? r['votes'] : 0;
  return { key: text(r['key']), name: text(r['name']), perks: perksOf(r['perks']), votes };
}

/**
 * The period an election resource describes: its mayor (the winner, with the votes the
 * election gave them and the minister they appointed) and every candidate of that election.
 * `start`/`end` come from the caller (the calendar), since the payload does not carry them.
 */
export function electionPeriod(stored: StoredElection, start: number, end: number): ElectionPeriod {
  const mayor = record(stored.payload['mayor']);
  const candidates = (() => {
    const list = record(mayor['election'])['candidates'];
    return Array.isArray(list) ? list.map(candidateOf) : [];
  })();
  const fromElection = candidates.find((c) => c.key === stored.mayorKey);
  const ministerRaw = record(mayor['minister']);
  const ministerPerk = record(ministerRaw['perk']);
  const minister: MinisterInfo | null =
    text(ministerRaw['key']) === ''
      ? null
      : {
          key: text(ministerRaw['key']),
          name: text(ministerRaw['name']),
          perk: text(ministerPerk['name']) === '' ? null : { name: text(ministerPerk['name']), description: text(ministerPerk['description']), minister: true },
        };
  const perks = mayor['perks'] !== undefined ? perksOf(mayor['perks']) : (fromElection?.perks ?? []);
  return {
    year: stored.year,
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    id: String(stored.year),
    winner: { key: stored.mayorKey, name: stored.mayorName, perks, votes: fromElection?.votes ?? 0, minister },
    candidates,
  };
}
