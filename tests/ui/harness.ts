/**
 * The console in process: a real ApiClient against the stub server (or the sandbox), the
 * console's element rendered by ink-testing-library (100 columns, 24 rows), and helpers that
 * wait for a frame instead of sleeping.
 */
import { render } from 'ink-testing-library';
import { ApiClient } from '../../src/api/client.js';
import { createConsole, type ConsoleOptions } from '../../src/ui/index.js';
import { QueryCache } from '../../src/ui/query-cache.js';
import { ok, startStubServer, type RecordedRequest, type StubReply, type StubServer } from '../support/stub-server.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
export const strip = (s: string | undefined) => (s ?? '').replace(ANSI, '');

export const tick = (ms = 15) => new Promise((r) => setTimeout(r, ms));

/** Subscriptions as the platform lists them. */
export function makeSubscriptions(n: number) {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return {
      subscription_id: i,
      user_id: 100 + i,
      username: `user${String(i).padStart(3, '0')}`,
      service_code: i % 2 ? 'GPT4' : 'DALLE',
      plan_code: 'PRO-M',
      status: i % 5 === 0 ? 'paused' : 'active',
      end_date: '2026-12-01T00:00:00Z',
      total_credits: 1000,
      remaining_credits: 1000 - i,
    };
  });
}

/** A stub platform: paged, filtered, sorted subscriptions, manage, services, dashboard. */
export function platform(subs = makeSubscriptions(95)) {
  return (req: RecordedRequest): StubReply => {
    if (req.method === 'GET' && req.path === '/admin/subscriptions') {
      const page = Number(req.query.page_number ?? 1);
      const size = Number(req.query.page_size ?? 20);
      let rows = subs;
      if (req.query.status) rows = rows.filter((s) => s.status === req.query.status);
      if (req.query.sort_by === 'Username')
        rows = [...rows].sort((a, b) => a.username.localeCompare(b.username) * (req.query.sort_order === 'DESC' ? -1 : 1));
      const total = rows.length;
      return ok({
        pagination: { current_page: page, page_size: size, total_pages: Math.max(1, Math.ceil(total / size)), total_records: total },
        subscriptions: rows.slice((page - 1) * size, page * size),
      });
    }
    const m = /^\/admin\/subscriptions\/(\d+)\/manage$/.exec(req.path);
    if (req.method === 'PUT' && m) {
      const body = req.body as { action: string; extend_days?: number };
      return ok(
        { subscription_id: Number(m[1]), action: body.action },
        `subscription ${m[1]} ${body.action === 'extend' ? `extended by ${body.extend_days} day(s)` : body.action}`,
      );
    }
    if (req.method === 'GET' && req.path === '/admin/dashboard') {
      return ok({
        totals: { active_subscriptions: 80, revenue: 1234.5 },
        daily: [
          { date: '2026-11-01', new_subscriptions: 3 },
          { date: '2026-11-02', new_subscriptions: 7 },
          { date: '2026-11-03', new_subscriptions: 5 },
        ],
      });
    }
    if (req.method === 'GET' && req.path === '/admin/services') {
      return ok({
        pagination: { current_page: 1, page_size: 20, total_pages: 1, total_records: 1 },
        services: [{ service_id: 1, service_code: 'GPT4', service_name: 'GPT-4 access', service_type: 'USAGE_BASED', is_active: true }],
      });
    }
    if (req.method === 'GET' && req.path === '/admin/services/detail') {
      return ok({
        service_info: { service_id: 1, service_code: 'GPT4', service_name: 'GPT-4 access', provider_name: 'OpenAI' },
        service_plans: [{ service_plan_id: 3, plan_code: 'PRO-M', plan_name: 'Pro monthly', price: 19.99 }],
        active_subscriptions: [],
        top_users: [{ user_id: 7, username: 'ana', total_usage: 42 }],
        usage_statistics: [],
      });
    }
    return { status: 404, json: { status: false, message: `no stub for ${req.method} ${req.path}` } };
  };
}

export interface Harness {
  server: StubServer;
  api: ApiClient;
  clock: { now: number };
  cache: QueryCache;
  ui: ReturnType<typeof render>;
  controller: ReturnType<typeof createConsole>['controller'];
  frame: () => string;
  /** Types keys, waiting a tick before and after each write. */
  press: (...keys: string[]) => Promise<void>;
  waitFor: (what: string | RegExp | (() => boolean), timeoutMs?: number) => Promise<string>;
  requests: (method?: string, path?: string) => RecordedRequest[];
  close: () => Promise<void>;
}

export async function startConsole(
  opts: Partial<ConsoleOptions> & { handler?: (req: RecordedRequest) => StubReply; baseUrl?: string; token?: string } = {},
): Promise<Harness> {
  const server = await startStubServer(opts.handler ?? platform());
  const api = new ApiClient({ baseUrl: opts.baseUrl ?? server.url, token: opts.token ?? 'test-token', retries: 0, timeoutMs: 5000 });
  const clock = { now: Date.parse('2026-11-22T10:00:00Z') };
  const cache = opts.cache ?? new QueryCache((spec) => api.call(spec.endpoint, spec.input as never), { now: () => clock.now });
  const { element, controller } = createConsole({
    api,
    session: { profile: 'test', target: server.url, user: 'admin', role: 'admin' },
    pageSize: 10,
    cache,
    ...opts,
  });
  const ui = render(element);
  const frame = () => strip(ui.lastFrame());
  // Returns as soon as the frame shows `what`: the wait only bounds a failure, and a loaded
  // machine (the suite beside a CPU-bound process) may take seconds to draw one.
  const waitFor = async (what: string | RegExp | (() => boolean), timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const f = frame();
      const hit = typeof what === 'string' ? f.includes(what) : what instanceof RegExp ? what.test(f) : what();
      if (hit) return f;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(what)}; last frame:\n${f}`);
      await tick(10);
    }
  };
  await tick();
  return {
    server,
    api,
    clock,
    cache,
    ui,
    controller,
    frame,
    waitFor,
    async press(...keys) {
      for (const k of keys) {
        await tick();
        ui.stdin.write(k);
        await tick();
      }
    },
    requests: (method, path) => server.requests.filter((r) => (!method || r.method === method) && (!path || r.path === path)),
    async close() {
      ui.unmount();
      ui.cleanup();
      await api.close();
      await server.close();
    },
  };
}

export const KEY = {
  enter: '\r',
  esc: '\u001b',
  up: '\u001b[A',
  down: '\u001b[B',
  right: '\u001b[C',
  left: '\u001b[D',
  pageUp: '\u001b[5~',
  pageDown: '\u001b[6~',
  tab: '\t',
  backspace: '\u007f',
  ctrlS: '\u0013',
  ctrlU: '\u0015',
  ctrlC: '\u0003',
  ctrlZ: '\u001a',
};
