/**
 * The live feed shared by every tab of the site (a SharedWorker): one `GET /api/stream`
 * connection for the union of what the visible tabs follow, instead of one per tab. Over HTTP/1.1
 * a browser opens at most six connections to a host, so six tabs each holding a feed left the
 * seventh page waiting. Tabs subscribe and unsubscribe (a hidden tab lets go); when no tab wants
 * anything the connection is closed. When the union changes, the connection is replaced and
 * resumes after the last event seen (`lastEventId`), so no tab misses an event. Every event goes
 * to every subscribed tab; each tab picks its own.
 */

/** What a tab sends. */
type TabMessage = { type: 'subscribe'; topics: string[]; tags: string[] } | { type: 'unsubscribe' };
/** What a tab receives: the feed's state and its events (the SSE `data`, as sent). */
export type FeedMessage = { type: 'open' } | { type: 'error' } | { type: 'event'; data: string };

/** The feed's limit on tags per connection (stream/subscription.ts MAX_TAGS): past it, every tag. */
const MAX_TAGS = 100;

const subscriptions = new Map<MessagePort, { topics: string[]; tags: string[] }>();
let source: EventSource | undefined;
let query = '';
let open = false;
let lastId: string | undefined;
let due: ReturnType<typeof setTimeout> | undefined;

function post(message: FeedMessage) {
  for (const port of subscriptions.keys()) port.postMessage(message);
}

function wanted(): string {
  const topics = new Set<string>();
  const tags = new Set<string>();
  for (const s of subscriptions.values()) {
    for (const t of s.topics) topics.add(t);
    for (const t of s.tags) tags.add(t);
  }
  if (topics.size === 0) return '';
  const params = new URLSearchParams({ topics: [...topics].sort().join(',') });
  if (tags.size > 0 && tags.size <= MAX_TAGS) params.set('tags', [...tags].sort().join(','));
  return params.toString();
}

function connect(next: string) {
  if (next === query) return;
  source?.close();
  source = undefined;
  open = false;
  query = next;
  if (next === '') return;
  const resume = lastId === undefined ? '' : `&lastEventId=${encodeURIComponent(lastId)}`;
  const es = new EventSource(`/api/stream?${next}${resume}`);
  es.onopen = () => {
    open = true;
    post({ type: 'open' });
  };
  es.onmessage = (m) => {
    if (m.lastEventId) lastId = m.lastEventId;
    post({ type: 'event', data: m.data as string });
  };
  // EventSource reconnects by itself (with Last-Event-ID); meanwhile the tabs poll.
  es.onerror = () => {
    open = false;
    post({ type: 'error' });
  };
  source = es;
}

/** Tabs come and go in bursts (a page load subscribes at once): one reconnect per burst. */
function reconcile() {
  due ??= setTimeout(() => {
    due = undefined;
    connect(wanted());
  }, 50);
}

declare const self: { onconnect: ((e: MessageEvent) => void) | null };

self.onconnect = (e: MessageEvent) => {
  const port = e.ports[0]!;
  port.onmessage = (m: MessageEvent<TabMessage>) => {
    if (m.data.type === 'subscribe') {
      subscriptions.set(port, { topics: m.data.topics, tags: m.data.tags });
      if (open) port.postMessage({ type: 'open' } satisfies FeedMessage);
    } else subscriptions.delete(port);
    reconcile();
  };
  port.start();
};
