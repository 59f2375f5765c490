/**
 * A direct harness for the user-area handlers: an in-memory (or file) database with every
 * migration, optionally seeded, and a `call()` that validates input with the endpoint's
 * contract schemas and checks access the way the HTTP framework does, then runs the handler.
 */
import Database from 'better-sqlite3';
import { endpointByName } from '../../src/api/contract/index.js';
import { issueToken, lookupToken, roleAllows } from '../../src/sandbox/auth.js';
import { allMigrations, migrate } from '../../src/sandbox/db.js';
import { mulberry32 } from '../../src/sandbox/seed.js';
import { seedAdmin } from '../../src/sandbox/seed-admin.js';
import { seedUsers } from '../../src/sandbox/seed-user.js';
import { userHandlers } from '../../src/sandbox/handlers/user.js';
import { SandboxError, type AuthUser, type DB } from '../../src/sandbox/types.js';

export interface CallOptions {
  /** Bearer token, or a username of a seeded account to sign in as. */
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
  error?: { code: string; message: string; fields?: unknown; [k: string]: unknown };
}

export interface AuditEntry {
  module: string;
  action: string;
  details: unknown;
  user_id: number | null;
}

export class Harness {
  readonly audits: AuditEntry[] = [];
  private tokens = new Map<string, string>();
  now: Date;

  constructor(
    readonly db: DB,
    now = new Date('2025-06-01T12:00:00.000Z'),
  ) {
    this.now = now;
  }

  static create(opts: { seed?: boolean; admin?: boolean; scale?: number; file?: string; now?: Date } = {}): Harness {
    const db = new Database(opts.file ?? ':memory:');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, allMigrations());
    const h = new Harness(db, opts.now);
    if (opts.seed !== false) {
      const rng = mulberry32(7);
      db.transaction(() => {
        seedUsers(db, { scale: opts.scale ?? 0.05, rng, now: h.now });
        if (opts.admin !== false) seedAdmin(db, { scale: opts.scale ?? 0.05, rng, now: h.now });
      })();
    }
    return h;
  }

  /** A token for a user, by username (issued once and cached). */
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

  async call(name: string, o: CallOptions = {}): Promise<CallResult> {
    const ep = endpointByName(name);
    const handler = userHandlers[name];
    if (!handler) throw new Error(`no handler for ${name}`);
    const token = o.token ?? (o.as ? this.tokenFor(o.as) : undefined);
    let user: AuthUser | null = null;
    if (token) user = lookupToken(this.db, token, this.now);
    if (ep.access !== 'public') {
      if (!user) return { status: 401, data: null, error: { code: 'UNAUTHORIZED', message: 'authentication required' } };
      if (!roleAllows(ep.access, user.role, ep.method)) return { status: 403, data: null, error: { code: 'FORBIDDEN', message: 'forbidden' } };
    }
    const headers = Object.fromEntries(Object.entries(o.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    if (ep.deviceId && !headers['x-device-id']) return { status: 400, data: null, error: { code: 'BAD_REQUEST', message: 'X-Device-ID header is required' } };
    const parse = (schema: any, v: unknown, where: string) => {
      if (!schema) return {};
      const r = schema.safeParse(v ?? {});
      if (!r.success) throw Object.assign(new Error(`invalid ${where}: ${r.error.message}`), { validation: true });
      return r.data;
    };
    let params: any, query: any, body: any;
    try {
      params = parse(ep.params, o.params, 'params');
      query = parse(ep.query, o.query, 'query');
      body = parse(ep.body, o.body, 'body');
    } catch (e: any) {
      if (e.validation) return { status: 400, data: null, error: { code: 'VALIDATION_ERROR', message: e.message } };
      throw e;
    }
    try {
      const r = await handler({
        db: this.db,
        user,
        params,
        query,
        body,
        headers,
        ip: '127.0.0.1',
        userAgent: 'vitest',
        now: () => this.now,
        audit: (module, action, details) => this.audits.push({ module, action, details, user_id: user?.user_id ?? null }),
      });
      return { status: r.status ?? 200, message: r.message, data: r.data };
    } catch (e) {
      if (e instanceof SandboxError) {
        return { status: e.status, data: null, message: e.message, error: { code: e.code, message: e.message, fields: e.fields, ...(e.extra ?? {}) } };
      }
      throw e;
    }
  }
}

/** A service with known plans and codes, on top of the seeded data. */
export function fixture(h: Harness) {
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
      .prepare(`INSERT INTO usage_codes (code_value, batch_id, service_plan_id, credit_amount, price, expiry_date, created_date) VALUES (?, 'TEST-BATCH', ?, ?, 0, ?, ?)`)
      .run(value, linkId, credits, expiry, at);
  return { serviceId, paid, free, eur, code };
}
