/**
 * Webhook targets for archive exports. A target is allowed only when it matches the
 * configured allow-list (EXPORT_WEBHOOK_HOSTS): an entry that is a bare host name allows
 * https URLs on that host or its subdomains on the default port; an entry that is an
 * origin (`http://127.0.0.1:9000`) allows exactly that origin. Pure: no I/O.
 */

/** The parsed URL when `raw` may be contacted, else null. */
export function allowedWebhook(raw: string, allowList: readonly string[]): URL | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  for (const entry of allowList) {
    if (entry.includes('://')) {
      if (url.origin === entry) return url;
      continue;
    }
    if (url.protocol !== 'https:' || url.port !== '') continue;
    const host = url.hostname.toLowerCase();
    if (host === entry || host.endsWith(`.${entry}`)) return url;
  }
  return null;
}

/** One CSV field: quoted when it holds a comma, quote or line break; formula-leading characters neutralised. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let s = String(value);
  // A cell starting with = + - @ is a formula in spreadsheet programs: prefix a quote (numbers excepted).
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
