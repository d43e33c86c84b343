/**
 * The alert records the faces show and the jobs pass around: targets, stored subscriptions, routes
 * (listeners) and deliveries. The store (store/repositories/alerts.ts) produces them.
 */
import type { AlertSubscription } from './spec.ts';

/** A delivery's state in the outbox. */
export type AlertDeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface AlertTarget {
  id: number;
  accountId: number;
  type: number;
  target: string;
  name: string | null;
  when: number;
  secret: string | null;
  useCount: number;
  failingSince: number | null;
  lastError: string | null;
  createdAt: number;
}

export interface StoredSubscription extends AlertSubscription {
  /** explicit targets; null: the routes, else every ALWAYS target */
  targetIds: number[] | null;
  listener: Record<string, unknown> | null;
  createdAt: number;
}

export interface TargetLinkRow {
  id: number;
  name: string | null;
  priority: number;
  isDisabled: boolean;
}

export interface AlertRoute {
  id: number;
  accountId: number;
  sourceType: string;
  sourceRegex: string | null;
  targets: TargetLinkRow[];
}

export interface AlertDelivery {
  id: number;
  alertKey: string;
  targetId: number;
  accountId: number;
  subscriptionId: number | null;
  body: string;
  status: AlertDeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  deliveredAt: number | null;
  lastError: string | null;
}

export interface NewDelivery {
  alertKey: string;
  targetId: number;
  accountId: number;
  subscriptionId: number | null;
  body: string;
}
