/** Schema pieces shared by route modules. */
import { Type, type TSchema } from 'typebox';

/** Response entries for problem-details statuses, referencing the shared Problem schema. */
export function problemResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) out[status] = Type.Ref('Problem');
  return out;
}

/** Epoch milliseconds → the wire's ISO-8601 UTC form. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
