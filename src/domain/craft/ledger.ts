/**
 * What one acquisition plan has already bought (pure): per item, how many units it has taken from
 * the front of that item's tranche list (NPC stock, buy-order capacity, sell-offer levels, BINs,
 * cheapest first). Buying always takes from the cheapest remaining tranche, so one number per item
 * says exactly which levels, listings and capacity are gone. Changes can be rolled back, so the
 * engine can price a candidate (a recipe, a hybrid) against the shared book and then forget it.
 */
export class Ledger {
  private readonly taken = new Map<string, number>();
  private readonly undo: Array<[tag: string, previous: number]> = [];

  /** units of `tag` already taken within this plan */
  takenOf(tag: string): number {
    return this.taken.get(tag) ?? 0;
  }

  /** items with units taken */
  get size(): number {
    return this.taken.size;
  }

  /** the items with units taken */
  tags(): IterableIterator<string> {
    return this.taken.keys();
  }

  take(tag: string, units: number): void {
    if (units <= 0) return;
    const previous = this.takenOf(tag);
    this.undo.push([tag, previous]);
    this.taken.set(tag, previous + units);
  }

  takeAll(takes: ReadonlyMap<string, number>): void {
    for (const [tag, units] of takes) this.take(tag, units);
  }

  /** a point to roll back to */
  checkpoint(): number {
    return this.undo.length;
  }

  rollback(checkpoint: number): void {
    while (this.undo.length > checkpoint) {
      const [tag, previous] = this.undo.pop()!;
      if (previous === 0) this.taken.delete(tag);
      else this.taken.set(tag, previous);
    }
  }

  /** a fresh plan: nothing taken */
  reset(): void {
    this.taken.clear();
    this.undo.length = 0;
  }
}

/** Adds `more` into `into` (units per tag). */
export function addTakes(into: Map<string, number>, more: ReadonlyMap<string, number>): void {
  for (const [tag, units] of more) into.set(tag, (into.get(tag) ?? 0) + units);
}
