/**
 * The /alerts page (docs/alerts.md): the visitor's account token, kept in this tab's session
 * storage, authenticates every call to the existing /api/notifications routes (Authorization:
 * Bearer); the page lists the account's targets (failing ones with the reason), subscriptions and
 * deliveries, and its forms create and delete through the same routes. Everything the API answers
 * is written as text, never as markup.
 */
const TOKEN_KEY = 'skymarket.alerts.token';
const TYPE_NAMES: Record<number, string> = { 1: 'Webhook', 3: 'Discord webhook', 6: 'In game', 100: 'Live feed' };
const WHEN_NAMES: Record<number, string> = { 0: 'Never', 1: 'When the others fail', 2: 'Always' };

interface Target {
  id: number;
  name: string | null;
  type: number;
  target: string | null;
  when: number;
  useCount: number;
  failing: boolean;
  failingSince: string | null;
  lastError: string | null;
  secret?: string;
}
interface Subscription {
  id: number;
  spec: Record<string, unknown>;
  minIntervalSeconds: number;
  targets: number[] | null;
}
interface Delivery {
  id: number;
  targetId: number;
  status: string;
  attempts: number;
  createdAt: string;
  lastError: string | null;
  alert: { title?: string };
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null;
const status = (text: string, error = false) => {
  const el = byId('alerts-status');
  if (!el) return;
  el.textContent = text;
  el.classList.toggle('error', error);
};

function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

class ApiError extends Error {}

async function api<T>(method: string, url: string, body?: unknown): Promise<T | null> {
  const headers: Record<string, string> = { authorization: `Bearer ${token() ?? ''}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) {
    const p = (json ?? {}) as { detail?: string; message?: string; title?: string };
    throw new ApiError(p.detail ?? p.message ?? p.title ?? `The API answered ${res.status}.`);
  }
  return json as T | null;
}

function cell(row: HTMLTableRowElement, text: string): HTMLTableCellElement {
  const td = row.insertCell();
  td.textContent = text;
  return td;
}

function button(label: string, onClick: () => Promise<void>): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.addEventListener('click', () => void run(onClick));
  return b;
}

async function run(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    status(err instanceof Error ? err.message : String(err), true);
  }
}

function fill<T>(tableId: string, rows: T[], write: (row: HTMLTableRowElement, item: T) => void, empty: string): void {
  const body = byId<HTMLTableElement>(tableId)?.tBodies[0];
  if (!body) return;
  body.replaceChildren();
  for (const item of rows) write(body.insertRow(), item);
  if (rows.length === 0) {
    const td = body.insertRow().insertCell();
    td.colSpan = 8;
    td.textContent = empty;
  }
}

async function load(): Promise<void> {
  const [targets, subs, deliveries] = await Promise.all([
    api<Target[]>('GET', '/api/notifications/targets'),
    api<Subscription[]>('GET', '/api/notifications/alerts'),
    api<Delivery[]>('GET', '/api/notifications/deliveries?limit=50'),
  ]);
  const names = new Map((targets ?? []).map((t) => [t.id, t.name ?? `#${t.id}`]));
  fill(
    'targets',
    targets ?? [],
    (row, t) => {
      row.dataset['id'] = String(t.id);
      cell(row, String(t.id));
      cell(row, t.name ?? '');
      cell(row, TYPE_NAMES[t.type] ?? `type ${t.type}`);
      cell(row, t.target ?? '(your account)');
      cell(row, WHEN_NAMES[t.when] ?? String(t.when));
      cell(row, String(t.useCount));
      const state = cell(row, t.failing ? `Failing since ${t.failingSince ?? '?'}: ${t.lastError ?? ''}` : 'OK');
      if (t.failing) state.className = 'failing';
      const actions = row.insertCell();
      actions.append(
        button('Test', async () => {
          await api('POST', '/api/notifications/targets/test', { id: t.id });
          status(`A test alert is on its way to target ${t.id}.`);
          await load();
        }),
        button('Delete', async () => {
          await api('DELETE', '/api/notifications/targets', { id: t.id });
          status(`Target ${t.id} deleted.`);
          await load();
        }),
      );
    },
    'No targets yet.',
  );
  fill(
    'subscriptions',
    subs ?? [],
    (row, s) => {
      row.dataset['id'] = String(s.id);
      cell(row, String(s.id));
      cell(row, JSON.stringify(s.spec));
      cell(row, `${s.minIntervalSeconds} s`);
      cell(row, s.targets === null ? 'routes, else every Always target' : s.targets.map((id) => names.get(id) ?? `#${id}`).join(', '));
      row.insertCell().append(
        button('Delete', async () => {
          await api('DELETE', `/api/notifications/alerts/${s.id}`);
          status(`Subscription ${s.id} deleted.`);
          await load();
        }),
      );
    },
    'No subscriptions yet.',
  );
  fill(
    'deliveries',
    deliveries ?? [],
    (row, d) => {
      cell(row, d.createdAt);
      cell(row, d.alert.title ?? '');
      cell(row, names.get(d.targetId) ?? `#${d.targetId}`);
      cell(row, d.status).className = d.status;
      cell(row, String(d.attempts));
      cell(row, d.lastError ?? '');
    },
    'Nothing delivered yet.',
  );
  const account = byId('alerts-account');
  if (account) account.hidden = false;
}

function formValue(form: HTMLFormElement, name: string): string {
  const el = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement | null;
  return el?.value.trim() ?? '';
}

function init(): void {
  const tokenForm = byId<HTMLFormElement>('token-form');
  if (!tokenForm) return;
  tokenForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const value = formValue(tokenForm, 'token');
    if (!value) return;
    sessionStorage.setItem(TOKEN_KEY, value);
    tokenForm.reset();
    void run(async () => {
      await load();
      status('Signed in with your token.');
    });
  });
  byId('token-forget')?.addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    const account = byId('alerts-account');
    if (account) account.hidden = true;
    status('Token forgotten.');
  });
  const targetForm = byId<HTMLFormElement>('target-form');
  targetForm?.addEventListener('submit', (e) => {
    e.preventDefault();
    void run(async () => {
      const type = Number(formValue(targetForm, 'type'));
      const created = await api<Target>('POST', '/api/notifications/targets', {
        type,
        target: formValue(targetForm, 'target') || null,
        name: formValue(targetForm, 'name') || null,
        when: Number(formValue(targetForm, 'when')),
      });
      const secret = byId('target-secret');
      if (secret) {
        secret.hidden = !created?.secret;
        secret.textContent = created?.secret ? `Signing secret of target ${created.id} (shown once): ${created.secret}` : '';
      }
      targetForm.reset();
      status(`Target ${created?.id ?? ''} added.`);
      await load();
    });
  });
  const alertForm = byId<HTMLFormElement>('alert-form');
  alertForm?.addEventListener('submit', (e) => {
    e.preventDefault();
    void run(async () => {
      let spec: unknown;
      try {
        spec = JSON.parse(formValue(alertForm, 'spec'));
      } catch {
        throw new ApiError('The spec is not JSON.');
      }
      const targets = formValue(alertForm, 'targets');
      const created = await api<Subscription>('POST', '/api/notifications/alerts', {
        spec,
        minIntervalSeconds: Number(formValue(alertForm, 'minIntervalSeconds') || 60),
        targets: targets ? targets.split(',').map((t) => Number(t.trim())).filter((n) => Number.isInteger(n) && n > 0) : null,
      });
      status(`Subscription ${created?.id ?? ''} added.`);
      await load();
    });
  });
  if (token()) void run(load);
}

init();
