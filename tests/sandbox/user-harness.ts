/**
 * A harness for the user-area tests over the real HTTP framework: each `Harness.create()` is a
 * sandbox from tests/support/sandbox.ts (`startTestSandbox`, a copy of a seeded template) whose
 * clock the test controls (`h.now`), and `call()` addresses endpoints by their contract name.
 */
import { endpointByName } from '../../src/api/contract/index.js';
import { issueToken, lookupToken } from '../../src/sandbox/auth.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { DB } from '../../src/sandbox/types.js';
import { call, startTestSandbox } from '../support/sandbox.js';

export interface CallOptions {
  /** A username to sign in as (a token is issued directly, once per clock epoch). */
  as?: string;
  token?: string;
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  message?: string;
  data: any;
  error?: { code: string; message: string; fields?: unknown; [k: string]: unknown } | null;
}

export interface AuditEntry {
  module: string;
  action: string;
  details: unknown;
  user_id: number | null;
}

export class Harness {
  private tokens = new Map<string, string>();
  private auditBase: number;

  private constructor(
    readonly sb: Sandbox,
    private clock: { at: Date },
  ) {
    this.auditBase = (sb.db.prepare('SELECT COALESCE(MAX(id), 0) AS n FROM audit_logs').get() as { n: number }).n;
  }

  /** A sandbox over a copy of the template seeded at `scale` (default 0.05: about 20 extra users). */
  static async create(opts: { scale?: number } = {}): Promise<Harness> {
    const clock = { at: new Date() };
    const sb = await startTestSandbox({ scale: opts.scale ?? 0.05, now: () => clock.at });
    return new Harness(sb, clock);
  }

  /** The sandbox clock; move it to test expiry. */
  get now(): Date {
    return this.clock.at;
  }
  set now(at: Date) {
    this.clock.at = at;
  }

  get db(): DB {
    return this.sb.db;
  }

  /** Audit entries written since the sandbox started (details parsed). */
  get audits(): AuditEntry[] {
    const rows = this.db
      .prepare('SELECT module, action, details, user_id FROM audit_logs WHERE id > ? ORDER BY id')
      .all(this.auditBase) as Array<{
      module: string;
      action: string;
      details: string | null;
      user_id: number | null;
    }>;
    return rows.map((r) => {
      let details: unknown = r.details;
      try {
        details = r.details === null ? null : JSON.parse(r.details);
      } catch {
        // plain text
      }
      return { module: r.module, action: r.action, details, user_id: r.user_id };
    });
  }

  /** A token for a user, by username, valid at the harness clock. */
  tokenFor(username: string): string {
    let t = this.tokens.get(username);
    if (!t || !lookupToken(this.db, t, this.now)) {
      const u = this.db.prepare('SELECT user_id FROM users WHERE username = ?').get(username) as { user_id: number } | undefined;
      if (!u) throw new Error(`no user ${username}`);
      t = issueToken(this.db, u.user_id, { now: this.now }).token;
      this.tokens.set(username, t);
    }
    return t;
  }

  userId(username: string): number {
    return (this.db.prepare('SELECT user_id FROM users WHERE username = ?').get(username) as { user_id: number }).user_id;
  }

  /** Calls the endpoint named `name` over HTTP; answers the status and the envelope's parts. */
  async call(name: string, o: CallOptions = {}): Promise<CallResult> {
    const ep = endpointByName(name);
    const path = ep.path.replace(/\{(\w+)\}/g, (_, k: string) => {
      if (o.params?.[k] === undefined) throw new Error(`${name}: path parameter ${k} missing`);
      return encodeURIComponent(String(o.params[k]));
    });
    const token = o.token ?? (o.as ? this.tokenFor(o.as) : undefined);
    const r = await call(this.sb, ep.method, path, {
      token,
      query: o.query,
      body: ep.body ? (o.body ?? {}) : undefined,
      headers: o.headers,
    });
    const env = r.json;
    return { status: r.status, message: env?.message, data: env?.data ?? null, error: env?.error ?? null };
  }
}

/** A service with known plans and codes, on top of the seeded data. */
export function fixture(h: { db: DB }) {
  const at = '2025-01-01T00:00:00.000Z';
  const svc = h.db
    .prepare(
      `INSERT INTO services (service_code, service_name, service_type, provider_name, description, base_service_url, access_pattern, credit_reset_cycle, created_date, last_updated)
       VALUES ('TESTSVC', 'Test Service, "beta"', 'USAGE_BASED', 'Acme', 'For tests', 'https://api.sandbox.local/v1/testsvc', '/x', 'monthly', ?, ?)`,
    )
    .run(at, at);
  const serviceId = Number(svc.lastInsertRowid);
  const plan = (code: string, price: number, credits: number, maxPerDay: number | null, currency = 'USD') => {
    const p = h.db
      .prepare(
        `INSERT INTO subscription_plans (plan_code, plan_name, price, currency, duration, duration_unit, credit_amount, credit_unit, max_usage_per_day, auto_renewal, created_date, last_updated)
         VALUES (?, ?, ?, ?, 1, 'months', ?, 'requests', ?, 1, ?, ?)`,
      )
      .run(code, `Plan ${code}`, price, currency, credits, maxPerDay, at, at);
    const l = h.db
      .prepare('INSERT INTO service_plans (service_id, plan_id, is_available, created_date, last_updated) VALUES (?, ?, 1, ?, ?)')
      .run(serviceId, Number(p.lastInsertRowid), at, at);
    return { planId: Number(p.lastInsertRowid), linkId: Number(l.lastInsertRowid) };
  };
  const paid = plan('TEST-PAID', 25, 100, 10);
  const free = plan('TEST-FREE', 0, 5, null);
  const eur = plan('TEST-EUR', 10, 50, null, 'EUR');
  const code = (value: string, linkId: number | null, credits: number, expiry = '2030-01-01T00:00:00.000Z') =>
    h.db
      .prepare(
        `INSERT INTO usage_codes (code_value, batch_id, service_plan_id, credit_amount, price, expiry_date, created_date) VALUES (?, 'TEST-BATCH', ?, ?, 0, ?, ?)`,
      )
      .run(value, linkId, credits, expiry, at);
  return { serviceId, paid, free, eur, code };
}
