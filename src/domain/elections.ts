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
