/**
 * The pages' one script (bundled by esbuild from npm packages, no CDN): search suggestions, the
 * item and bazaar charts (TradingView lightweight-charts, hydrated from the JSON embedded in the
 * page: no second request for the first view), range and variant switches, the order book's
 * refresh and sortable flip tables. Every page is readable without it.
 */
import {
  createChart,
  CandlestickSeries,
  HistogramSeries,
  LineSeries,
  LineStyle,
  type IChartApi,
  type ISeriesApi,
  type ISeriesPrimitive,
  type SeriesAttachedParameter,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';

/** A bucket without sales has null prices (a gap in the lines and the band, not a zero). */
interface ItemPoint { time: number; min: number | null; max: number | null; avg: number | null; median: number | null; volume: number; lowestBin: number | null }
interface Term { start: number; end: number; name: string }
/** a mayor's name as drawn on the chart (media pixels) */
interface Label { name: string; x: number; width: number }
interface ItemChart { points: ItemPoint[]; range: string; variant: string; filters: Record<string, string>; sales: number; cut: number | null; mayors: Term[] }
interface Ohlc { open: number; high: number; low: number; close: number }
interface Candle { time: number; buy: Ohlc; sell: Ohlc; buyMovingWeek: number; sellMovingWeek: number }
interface BookLevel { amount: number; pricePerUnit: number; orders: number }
interface Bins { at: number; lowest: number | null; supply: number; rows: Array<{ uuid: string; price: number; tier: string; level: number | null; attrs: string; seller: string }> }
interface Book { ts: number; buyPrice: number; sellPrice: number; sellOffers: BookLevel[]; buyOrders: BookLevel[] }
type PageData =
  | { kind: 'item'; tag: string; chart: ItemChart; lowestBin: number | null }
  | { kind: 'bazaar'; tag: string; range: string; candles: Candle[]; book: Book | null };

/** What the tests and the screenshots read: how many points each series drew. */
declare global {
  interface Window { skymarketChart?: ChartState }
}
interface ChartState {
  series: Record<string, number>;
  range: string;
  variant: string;
  updates: number;
  /** ms the last setData of every series took (the browser tests feed a year of hourly points) */
  drawMs?: number;
  /** draws a chart answer as the range switch does (the browser tests use it) */
  draw?: (chart: ItemChart) => void;
  /** the mayor names drawn on the item chart, where (the tests check they do not overlap) */
  mayorLabels?: Label[];
  /** the values the item chart's lines hold (null: whitespace, a gap) */
  data?: () => { average: Array<number | null>; median: Array<number | null> };
}

const sec = (ms: number) => Math.floor(ms / 1000) as UTCTimestamp;
const dark = () => matchMedia('(prefers-color-scheme: dark)').matches;
const fmt = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
const coins = (n: number | null) => (n === null ? '–' : Math.abs(n) < 100_000 ? n.toLocaleString('en-US', { maximumFractionDigits: 1 }) : fmt.format(n));

function colors() {
  const d = dark();
  return {
    text: d ? '#d5dae1' : '#1f2328',
    grid: d ? '#2a2f37' : '#eceef1',
    up: '#1a9d5c',
    down: '#d64545',
    accent: d ? '#6ea8fe' : '#1f6feb',
    median: d ? '#f5b14c' : '#b7791f',
    band: d ? 'rgba(110,168,254,0.16)' : 'rgba(31,111,235,0.12)',
    volume: d ? 'rgba(160,170,185,0.45)' : 'rgba(100,110,125,0.35)',
  };
}

function baseChart(el: HTMLElement): IChartApi {
  const c = colors();
  const chart = createChart(el, {
    autoSize: true,
    layout: { background: { color: 'transparent' }, textColor: c.text, attributionLogo: false, fontFamily: 'inherit' },
    grid: { vertLines: { color: c.grid }, horzLines: { color: c.grid } },
    timeScale: { timeVisible: true, secondsVisible: false, borderVisible: false },
    rightPriceScale: { borderVisible: false },
    localization: { priceFormatter: coins },
    handleScroll: true,
    handleScale: true,
  });
  return chart;
}

/** The min–max band of the item chart, drawn under the lines (lightweight-charts has no band series). */
class Band implements ISeriesPrimitive<Time> {
  private points: ItemPoint[] = [];
  private params: SeriesAttachedParameter<Time> | undefined;
  constructor(private readonly color: string) {}
  attached(p: SeriesAttachedParameter<Time>) { this.params = p; }
  detached() { this.params = undefined; }
  set(points: ItemPoint[]) { this.points = points; this.params?.requestUpdate(); }
  updateAllViews() {}
  paneViews() {
    const self = this;
    return [{
      zOrder: () => 'bottom' as const,
      renderer: () => ({
        draw(target: { useMediaCoordinateSpace<T>(f: (s: { context: CanvasRenderingContext2D }) => T): T }) {
          const p = self.params;
          if (!p || self.points.length < 2) return;
          const ts = p.chart.timeScale();
          // One polygon per run of buckets with sales: a bucket without sales breaks the band.
          const runs: Array<{ upper: Array<[number, number]>; lower: Array<[number, number]> }> = [];
          let run: (typeof runs)[number] | undefined;
          for (const pt of self.points) {
            const x = ts.timeToCoordinate(sec(pt.time));
            const hi = pt.max === null ? null : p.series.priceToCoordinate(pt.max);
            const lo = pt.min === null ? null : p.series.priceToCoordinate(pt.min);
            if (x === null || hi === null || lo === null) { run = undefined; continue; }
            if (!run) runs.push((run = { upper: [], lower: [] }));
            run.upper.push([x, hi]);
            run.lower.push([x, lo]);
          }
          target.useMediaCoordinateSpace(({ context }) => {
            context.fillStyle = self.color;
            for (const { upper, lower } of runs) {
              if (upper.length < 2) continue;
              context.beginPath();
              context.moveTo(upper[0]![0], upper[0]![1]);
              for (const [x, y] of upper) context.lineTo(x, y);
              for (let i = lower.length - 1; i >= 0; i--) context.lineTo(lower[i]![0], lower[i]![1]);
              context.closePath();
              context.fill();
            }
          });
        },
      }),
    }];
  }
}

/** Mayor terms shaded behind the item chart, every other term darker, each named at its top where the name fits in its term. */
class Terms implements ISeriesPrimitive<Time> {
  private terms: Term[] = [];
  private points: ItemPoint[] = [];
  private params: SeriesAttachedParameter<Time> | undefined;
  constructor(private readonly fill: string, private readonly text: string, private readonly onLabels: (labels: Label[]) => void) {}
  attached(p: SeriesAttachedParameter<Time>) { this.params = p; }
  detached() { this.params = undefined; }
  set(terms: Term[], points: ItemPoint[]) { this.terms = terms; this.points = points; this.params?.requestUpdate(); }
  updateAllViews() {}
  /** x of a time: the first drawn point at or after it (terms start and end between points) */
  private x(time: number, edge: number): number | null {
    const ts = this.params!.chart.timeScale();
    const p = this.points.find((q) => q.time >= time);
    if (!p) return edge;
    return ts.timeToCoordinate(sec(p.time));
  }
  paneViews() {
    const self = this;
    return [{
      zOrder: () => 'bottom' as const,
      renderer: () => ({
        draw(target: { useMediaCoordinateSpace<T>(f: (s: { context: CanvasRenderingContext2D; mediaSize: { width: number; height: number } }) => T): T }) {
          if (!self.params || self.points.length === 0) return;
          target.useMediaCoordinateSpace(({ context, mediaSize }) => {
            const labels: Label[] = [];
            context.font = '11px system-ui, sans-serif';
            self.terms.forEach((t, i) => {
              const x0 = Math.max(0, self.x(t.start, 0) ?? 0);
              const x1 = Math.min(mediaSize.width, self.x(t.end, mediaSize.width) ?? mediaSize.width);
              if (x1 <= x0) return;
              if (i % 2 === 0) {
                context.fillStyle = self.fill;
                context.fillRect(x0, 0, x1 - x0, mediaSize.height);
              }
              // A name only inside its own term: on a narrow chart short terms stay unnamed rather than overlap.
              const width = context.measureText(t.name).width;
              if (x0 + 4 + width > x1 - 2) return;
              context.fillStyle = self.text;
              context.fillText(t.name, x0 + 4, 12);
              labels.push({ name: t.name, x: x0 + 4, width });
            });
            self.onLabels(labels);
          });
        },
      }),
    }];
  }
}

/** The item page's cards that follow the chart: the latest median (newest bucket with sales) and the items sold. */
function showCards(chart: ItemChart) {
  let last: ItemPoint | undefined;
  for (const p of chart.points) if (p.median !== null) last = p;
  const median = document.getElementById('stat-median');
  if (median) {
    median.textContent = coins(last?.median ?? null);
    if (last) median.title = `bucket from ${new Date(last.time).toISOString()}`;
    else median.removeAttribute('title');
  }
  const sold = document.getElementById('stat-sold');
  if (sold) sold.textContent = chart.sales.toLocaleString('en-US');
  const range = document.getElementById('stat-sold-range');
  if (range) range.textContent = chart.range === 'full' ? 'all' : chart.range;
}

function pageData(): PageData | undefined {
  const el = document.getElementById('page-data');
  return el?.textContent ? (JSON.parse(el.textContent) as PageData) : undefined;
}

function itemPage(data: Extract<PageData, { kind: 'item' }>, el: HTMLElement) {
  const c = colors();
  const chart = baseChart(el);
  const avg = chart.addSeries(LineSeries, { color: c.accent, lineWidth: 2, title: 'average', priceLineVisible: false });
  const median = chart.addSeries(LineSeries, { color: c.median, lineWidth: 1, title: 'median', priceLineVisible: false, lastValueVisible: false });
  const band = new Band(c.band);
  avg.attachPrimitive(band);
  const terms = new Terms(dark() ? 'rgba(255,255,255,0.04)' : 'rgba(0,0,0,0.035)', dark() ? '#9aa4b1' : '#59636e', (labels) => { state.mayorLabels = labels; });
  avg.attachPrimitive(terms);
  // No title: the dashed line of the lowest BIN now carries the one "lowest BIN" label on the axis.
  const lbin = chart.addSeries(LineSeries, { color: c.down, lineWidth: 1, priceLineVisible: false, lastValueVisible: false });
  const volume = chart.addSeries(HistogramSeries, { color: c.volume, priceScaleId: 'volume', priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  chart.priceScale('right').applyOptions({ scaleMargins: { top: 0.08, bottom: 0.25 } });
  // min and max as invisible lines so the price scale spans the band
  const hi = chart.addSeries(LineSeries, { color: 'transparent', lineVisible: false, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false });
  const lo = chart.addSeries(LineSeries, { color: 'transparent', lineVisible: false, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false });
  // the lowest BIN now: a dashed line, moved by the live feed (liveBins)
  let lowestLine: ReturnType<typeof avg.createPriceLine> | undefined;
  const moveLowest = (price: number | null) => {
    if (price === null) {
      if (lowestLine) avg.removePriceLine(lowestLine);
      lowestLine = undefined;
    } else if (lowestLine) lowestLine.applyOptions({ price });
    else lowestLine = avg.createPriceLine({ price, color: c.down, lineStyle: LineStyle.Dashed, lineWidth: 1, axisLabelVisible: true, title: 'lowest BIN' });
  };
  moveLowest(data.lowestBin);
  const state: ChartState = (window.skymarketChart = { series: {}, range: data.chart.range, variant: '', updates: 0 });
  const draw = (chartData: ItemChart) => {
    const started = performance.now();
    const pts = chartData.points;
    // null (a bucket without sales): whitespace, which lightweight-charts draws as a gap
    const line = (value: (p: ItemPoint) => number | null): Array<{ time: UTCTimestamp; value?: number }> => pts.map((p) => { const v = value(p); return v === null ? { time: sec(p.time) } : { time: sec(p.time), value: v }; });
    const average = line((p) => p.avg);
    const medians = line((p) => p.median);
    avg.setData(average);
    median.setData(medians);
    hi.setData(line((p) => p.max));
    lo.setData(line((p) => p.min));
    volume.setData(pts.map((p) => ({ time: sec(p.time), value: p.volume })));
    const bins = pts.filter((p) => p.lowestBin !== null);
    lbin.setData(bins.map((p) => ({ time: sec(p.time), value: p.lowestBin! })));
    band.set(pts);
    terms.set(chartData.mayors ?? [], pts);
    chart.timeScale().fitContent();
    const sold = pts.filter((p) => p.avg !== null).length;
    state.series = { average: sold, median: sold, band: sold, volume: pts.length, lowestBin: bins.length, mayorTerms: (chartData.mayors ?? []).length };
    // what the lines were given, for the tests (no zero where the data has a gap); read when asked
    state.data = () => ({ average: average.map((d) => d.value ?? null), median: medians.map((d) => d.value ?? null) });
    showCards(chartData);
    state.range = chartData.range;
    state.variant = [chartData.variant, ...Object.values(chartData.filters)].filter(Boolean).join(',');
    state.updates++;
    state.drawMs = performance.now() - started;
    el.dataset.points = String(pts.length);
  };
  state.draw = draw;
  draw(data.chart);
  const bins = liveBins(data.tag, moveLowest);
  // One choice drives the page: the chart, its cards and the lowest-BIN panel follow the variant.
  controls(async (params) => {
    const [res] = await Promise.all([fetch(`/item/${encodeURIComponent(data.tag)}/chart.json?${params}`), bins()]);
    if (res.ok) draw((await res.json()) as ItemChart);
  });
}

function bazaarPage(data: Extract<PageData, { kind: 'bazaar' }>, el: HTMLElement) {
  const c = colors();
  const chart = baseChart(el);
  const candles = chart.addSeries(CandlestickSeries, { upColor: c.up, downColor: c.down, wickUpColor: c.up, wickDownColor: c.down, borderVisible: false });
  const volume = chart.addSeries(HistogramSeries, { color: c.volume, priceScaleId: 'volume', priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  chart.priceScale('right').applyOptions({ scaleMargins: { top: 0.08, bottom: 0.25 } });
  const sideSelect = document.getElementById('side') as HTMLSelectElement | null;
  let current = data.candles;
  const state: ChartState = (window.skymarketChart = { series: {}, range: data.range, variant: 'buy', updates: 0 });
  const draw = () => {
    const side = (sideSelect?.value ?? 'buy') as 'buy' | 'sell';
    candles.setData(current.map((k) => ({ time: sec(k.time), ...k[side] })));
    volume.setData(current.map((k) => ({ time: sec(k.time), value: side === 'buy' ? k.buyMovingWeek : k.sellMovingWeek })));
    chart.timeScale().fitContent();
    state.series = { candles: current.length, volume: current.length };
    state.variant = side;
    state.updates++;
    el.dataset.points = String(current.length);
  };
  draw();
  sideSelect?.addEventListener('change', draw);
  controls(async (params) => {
    params.delete('side');
    const res = await fetch(`/bazaar/${encodeURIComponent(data.tag)}/candles.json?${params}`);
    if (!res.ok) return;
    const body = (await res.json()) as { range: string; candles: Candle[] };
    current = body.candles;
    state.range = body.range;
    draw();
  });
  if (data.book) liveBook(data.tag);
}

/** One subscription to the live feed: paused while the tab is hidden, closed when the page goes. */
interface FeedLink {
  pause(): void;
  resume(): void;
}

/**
 * Subscribes to the live feed: through the site's SharedWorker (feed-worker.ts: one connection for
 * every tab), else (no SharedWorker, e.g. Chrome on Android) a connection of this tab's own.
 */
function connectFeed(topics: string[], tags: string[], on: { open(): void; event(data: string): void; error(): void }): FeedLink | undefined {
  const url = document.body?.dataset.feedWorker;
  if (url && typeof SharedWorker !== 'undefined') {
    try {
      const port = new SharedWorker(url, { name: 'skymarket-feed' }).port;
      port.onmessage = (m: MessageEvent<{ type: 'open' } | { type: 'error' } | { type: 'event'; data: string }>) => {
        if (m.data.type === 'event') on.event(m.data.data);
        else if (m.data.type === 'open') on.open();
        else on.error();
      };
      const subscribe = () => port.postMessage({ type: 'subscribe', topics, tags });
      subscribe();
      return { pause: () => port.postMessage({ type: 'unsubscribe' }), resume: subscribe };
    } catch {
      // a worker refused (a browser setting): a connection of the tab's own
    }
  }
  if (typeof EventSource === 'undefined') return undefined;
  let feed: EventSource | undefined;
  const resume = () => {
    feed ??= new EventSource(`/api/stream?${new URLSearchParams({ topics: topics.join(','), tags: tags.join(',') })}`);
    feed.onopen = on.open;
    feed.onmessage = (m) => on.event(m.data as string);
    // EventSource reconnects by itself; meanwhile (or when the feed is refused) the caller polls.
    feed.onerror = on.error;
  };
  resume();
  return { pause: () => { feed?.close(); feed = undefined; }, resume };
}

/**
 * Follows the live feed (GET /api/stream, Server-Sent Events) for `tag`: `refresh` runs when an
 * event passes `wanted` (at most once a second), and after a gap; on a 20-second timer while the
 * feed cannot be reached. A hidden tab lets go of the feed and refreshes once when shown again.
 * `status` says which (data-live) and when (data-refreshed-at).
 */
function follow(topics: string[], tag: string, wanted: (e: { topic: string; [k: string]: unknown }) => boolean, refresh: () => Promise<number | undefined>, status: HTMLElement | null) {
  let due: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    const at = await refresh().catch(() => undefined);
    if (status && at !== undefined) status.dataset.refreshedAt = String(at);
  };
  const soon = () => { due ??= setTimeout(() => { due = undefined; void run(); }, 1000); };
  let timer: ReturnType<typeof setInterval> | undefined;
  const poll = () => { timer ??= setInterval(() => { if (!document.hidden) void run(); }, 20_000); };
  const link = connectFeed(topics, [tag], {
    open() {
      if (timer !== undefined) { clearInterval(timer); timer = undefined; }
      if (status) status.dataset.live = 'stream';
    },
    event(data) {
      const e = JSON.parse(data) as { topic: string };
      if (e.topic === 'gap' || wanted(e)) soon();
    },
    error() {
      if (status) status.dataset.live = 'timer';
      poll();
    },
  });
  if (!link) return poll();
  let paused = false;
  const pause = () => { if (!paused) { paused = true; link.pause(); } };
  const resume = () => { if (paused) { paused = false; link.resume(); soon(); } };
  document.addEventListener('visibilitychange', () => (document.hidden ? pause() : resume()));
  addEventListener('pagehide', pause);
  addEventListener('pageshow', (e) => { if (e.persisted && !document.hidden) resume(); });
  if (document.hidden) pause();
}

function cells(values: string[], classes: string[] = []): HTMLTableRowElement {
  const tr = document.createElement('tr');
  values.forEach((v, i) => {
    const td = document.createElement('td');
    if (classes[i]) td.className = classes[i]!;
    td.textContent = v;
    tr.append(td);
  });
  return tr;
}

/** Keeps the order book live: refetched on every `bazaar.changed` event of the product. */
function liveBook(tag: string) {
  const refresh = async () => {
    const res = await fetch(`/bazaar/${encodeURIComponent(tag)}/book.json`, { cache: 'no-store' });
    if (!res.ok) return undefined;
    const book = (await res.json()) as Book;
    for (const side of ['sellOffers', 'buyOrders'] as const) {
      const body = document.querySelector(`tbody[data-side="${side}"]`);
      body?.replaceChildren(...book[side].map((l) => cells([coins(l.pricePerUnit), l.amount.toLocaleString('en-US'), String(l.orders)], ['num', 'num', 'num'])));
    }
    const buy = document.getElementById('stat-buy');
    const sell = document.getElementById('stat-sell');
    if (buy) buy.textContent = coins(book.buyPrice);
    if (sell) sell.textContent = coins(book.sellPrice);
    const when = document.getElementById('book-time');
    if (when) {
      serverAtLeast(book.ts);
      when.setAttribute('datetime', new Date(book.ts).toISOString());
      showAge(when as HTMLTimeElement);
    }
    return book.ts;
  };
  follow(['bazaar.changed'], tag, (e) => e.topic === 'bazaar.changed' && e['product'] === tag, refresh, document.getElementById('book-status'));
}

/**
 * Keeps the lowest BINs live: the panel, the lowest-BIN figure, the supply and the chart's dashed
 * line are refetched when the feed tells of a new listing, a sale, an ended listing or a
 * lowest-BIN change of the tag.
 */
function liveBins(tag: string, onLowest: (price: number | null) => void) {
  const refresh = async () => {
    const params = new URLSearchParams();
    for (const [k, v] of new URLSearchParams(location.search)) if ((k === 'variant' || k === 'Rarity') && v !== '') params.set(k, v);
    const res = await fetch(`/item/${encodeURIComponent(tag)}/bins.json?${params}`, { cache: 'no-store' });
    if (!res.ok) return undefined;
    const bins = (await res.json()) as Bins;
    const body = document.getElementById('bins-body');
    const level = body?.hasAttribute('data-level') ?? false;
    body?.replaceChildren(
      ...bins.rows.map((r) => {
        const tr = level ? cells([coins(r.price), r.tier, String(r.level ?? ''), r.attrs, r.seller], ['num', '', 'num', 'small', 'seller']) : cells([coins(r.price), r.tier, r.attrs, r.seller], ['num', '', 'small', 'seller']);
        // The price leads to the listing's value, as the server-rendered rows do.
        const a = document.createElement('a');
        a.href = `/value?auction=${encodeURIComponent(r.uuid)}`;
        a.title = 'what this listing is worth';
        a.textContent = coins(r.price);
        tr.cells[0]!.replaceChildren(a);
        return tr;
      }),
    );
    body?.closest('.scroll')?.toggleAttribute('hidden', bins.rows.length === 0);
    document.getElementById('bins-empty')?.toggleAttribute('hidden', bins.rows.length > 0);
    const lbin = document.getElementById('stat-lbin');
    if (lbin) lbin.textContent = coins(bins.lowest);
    const supply = document.getElementById('stat-supply');
    if (supply) supply.textContent = String(bins.supply);
    onLowest(bins.lowest);
    return bins.at;
  };
  const status = document.getElementById('bins-status');
  follow(['auction.new', 'auction.sold', 'auction.ended', 'lbin.changed'], tag, (e) => e['tag'] === tag, refresh, status);
  /** refetches now (the variant changed) */
  return async () => {
    const at = await refresh().catch(() => undefined);
    if (status && at !== undefined) status.dataset.binsVariant = new URLSearchParams(location.search).get('variant') ?? '';
  };
}

/** Range radios and variant selects: fetch and redraw in place, and keep the URL shareable. */
function controls(load: (params: URLSearchParams) => Promise<void>) {
  const form = document.getElementById('chart-controls') as HTMLFormElement | null;
  if (!form) return;
  const params = () => {
    const p = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === 'string' && v !== '') p.set(k, v);
    return p;
  };
  form.addEventListener('change', (e) => {
    const p = params();
    if ((e.target as HTMLElement).id === 'side') return;
    history.replaceState(null, '', `${location.pathname}?${p}`);
    void load(p);
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void load(params());
  });
}

/** Search suggestions from /api/item/search (items and bazaar products), keyboard-navigable. */
function search() {
  const input = document.getElementById('q') as HTMLInputElement | null;
  const list = document.getElementById('suggest') as HTMLUListElement | null;
  if (!input || !list) return;
  let seq = 0;
  let active = -1;
  const close = () => { list.hidden = true; input.setAttribute('aria-expanded', 'false'); active = -1; };
  const options = () => [...list.querySelectorAll<HTMLAnchorElement>('a')];
  input.addEventListener('input', async () => {
    const term = input.value.trim();
    const mine = ++seq;
    if (term.length < 2) return close();
    const res = await fetch(`/api/item/search/${encodeURIComponent(term.slice(0, 64))}`).catch(() => undefined);
    if (!res?.ok || mine !== seq) return;
    const hits = (await res.json()) as Array<{ name: string; id: string; type: string; iconUrl: string | null }>;
    list.replaceChildren(...hits.filter((h) => h.type === 'item').slice(0, 8).map((h, i) => {
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.id = `suggest-${i}`;
      const a = document.createElement('a');
      a.href = `/item/${encodeURIComponent(h.id)}`;
      if (h.iconUrl) {
        const img = document.createElement('img');
        img.src = h.iconUrl; img.alt = ''; img.width = 20; img.height = 20;
        a.append(img);
      }
      a.append(document.createTextNode(h.name));
      li.append(a);
      return li;
    }));
    list.hidden = list.children.length === 0;
    input.setAttribute('aria-expanded', String(!list.hidden));
  });
  input.addEventListener('keydown', (e) => {
    const opts = options();
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (opts.length === 0) return;
      e.preventDefault();
      active = (active + (e.key === 'ArrowDown' ? 1 : opts.length - 1)) % opts.length;
      opts.forEach((o, i) => o.parentElement!.setAttribute('aria-selected', String(i === active)));
      input.setAttribute('aria-activedescendant', `suggest-${active}`);
    } else if (e.key === 'Enter') {
      const target = opts[active >= 0 ? active : 0];
      if (target) { e.preventDefault(); location.href = target.href; }
    } else if (e.key === 'Escape') close();
  });
  document.addEventListener('click', (e) => { if (!list.contains(e.target as Node) && e.target !== input) close(); });
}

/** Tabs (by hash) and click-to-sort tables. */
function tables() {
  const tabs = [...document.querySelectorAll<HTMLAnchorElement>('[role="tab"]')];
  if (tabs.length) {
    const show = (id: string) => {
      for (const t of tabs) {
        const on = t.getAttribute('aria-controls') === id;
        t.setAttribute('aria-selected', String(on));
        document.getElementById(t.getAttribute('aria-controls')!)!.hidden = !on;
      }
    };
    const initial = tabs.find((t) => `#${t.getAttribute('aria-controls')}` === location.hash) ?? tabs[0]!;
    show(initial.getAttribute('aria-controls')!);
    for (const t of tabs) t.addEventListener('click', (e) => { e.preventDefault(); show(t.getAttribute('aria-controls')!); history.replaceState(null, '', t.hash); });
  }
  for (const table of document.querySelectorAll<HTMLTableElement>('table.sortable')) {
    const heads = [...table.tHead!.rows[0]!.cells];
    heads.forEach((th, col) => th.querySelector('button')?.addEventListener('click', () => {
      const asc = th.getAttribute('aria-sort') === 'descending';
      heads.forEach((h) => h.setAttribute('aria-sort', 'none'));
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      const body = table.tBodies[0]!;
      const rows = [...body.rows];
      const key = (r: HTMLTableRowElement) => r.cells[col]!.dataset.v ?? '';
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        const nx = Number(x), ny = Number(y);
        const d = x !== '' && y !== '' && !Number.isNaN(nx) && !Number.isNaN(ny) ? nx - ny : x.localeCompare(y);
        return asc ? d : -d;
      });
      body.append(...rows);
    }));
  }
}

/**
 * "17 s ago": the server's time when it rendered the page (body data-now) plus the time since, so
 * the ages agree with the server's clock (a demo's simulated one too).
 */
let serverBase = Number(document.body?.dataset.now);
let serverBaseAt = Date.now();
if (!(Number.isFinite(serverBase) && serverBase > 0)) serverBase = serverBaseAt;
const serverNow = () => serverBase + (Date.now() - serverBaseAt);
/** The server's clock is at least at a time it has just reported (a snapshot is never from the future). */
function serverAtLeast(ms: number) {
  if (ms > serverNow()) [serverBase, serverBaseAt] = [ms, Date.now()];
}

/** The server's `ago` (web/render.ts), for the ages the page keeps current. */
function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

function showAge(el: HTMLTimeElement) {
  const at = Date.parse(el.dateTime);
  if (Number.isFinite(at)) el.textContent = ago(at, serverNow());
}

/** Every `<time data-ago>` ticks once a second while the page is visible. */
function ages() {
  const tick = () => { if (!document.hidden) for (const el of document.querySelectorAll<HTMLTimeElement>('time[data-ago]')) showAge(el); };
  setInterval(tick, 1000);
}

function start() {
  search();
  tables();
  ages();
  const data = pageData();
  const el = document.getElementById('chart');
  if (data && el) {
    if (data.kind === 'item') itemPage(data, el);
    else bazaarPage(data, el);
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
