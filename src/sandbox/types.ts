/**
 * The sandbox's internal contract between its HTTP framework (server.ts, handle.ts) and the handlers
 * of each area (handlers/admin-*.ts, handlers/user-*.ts). A handler receives input already
 * validated with the endpoint's contract schemas and returns the `data` of the envelope.
 */
import type Database from 'better-sqlite3';
import type { Role } from './schema-core.js';

export type DB = Database.Database;

/** The signed-in caller, from the bearer token (null on public endpoints without a token). */
export interface AuthUser {
  user_id: number;
  username: string;
  role: Role;
  /** The token presented, so logout can revoke it. */
  token: string;
  /** CMS session id, when the token came from /cms/auth/login. */
  session_id: string | null;
}

/**
 * Values already parsed by the endpoint's schema (request.ts) before a handler runs. Typed loosely
 * here because one context serves every endpoint; a context typed from each endpoint's schemas
 * would let these be precise.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: parsed by the endpoint's schema first
type Parsed = Record<string, any>;

export interface HandlerContext {
  db: DB;
  user: AuthUser | null;
  /** Path params, parsed with the endpoint's `params` schema (ids are integers). */
  params: Parsed;
  /** Query, parsed with the endpoint's `query` schema (defaults applied). */
  query: Parsed;
  /** Body, parsed with the endpoint's `body` schema. */
  body: Parsed;
  /** Request headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  userAgent: string;
  /** The sandbox clock (injectable for tests). */
  now(): Date;
  /** Records an audit entry for a mutation (module e.g. 'subscriptions', action e.g. 'manage'). */
  audit(module: string, action: string, details: unknown): void;
  /** The order audit entries are served in: newest first, or oldest first under `--chaos audit=oldest` (chaos.ts). */
  auditOrder: 'ASC' | 'DESC';
}

export interface HandlerResult {
  /** HTTP status, 200 unless said (201 for POST /users). */
  status?: number;
  /** The envelope's message. */
  message?: string;
  data: unknown;
}

export type Handler = (ctx: HandlerContext) => HandlerResult | Promise<HandlerResult>;

/** Handlers of one area, keyed by the contract endpoint's `name`. */
export type HandlerTable = Record<string, Handler>;

/**
 * A rejection with the platform's envelope: `{status:false, message, data:null,
 * error:{code, message, fields?}}`. Throw it from a handler.
 */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string = statusCode(status),
    readonly fields?: Array<{ field: string; message: string }>,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

function statusCode(status: number): string {
  switch (status) {
    case 400:
      return 'BAD_REQUEST';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 422:
      return 'UNPROCESSABLE';
    default:
      return 'SERVER_ERROR';
  }
}

/** A row of the services table, as `SELECT *` reads it (0/1 for booleans). */
export interface ServiceRow {
  service_id: number;
  service_code: string;
  service_name: string;
  service_type: string;
  provider_name: string;
  description: string | null;
  base_service_url: string;
  access_pattern: string;
  credit_reset_cycle: string;
  is_active: number;
  requires_auth: number;
  report_type: string;
  created_by: number | null;
  updated_by: number | null;
  created_date: string;
  last_updated: string;
}

/** One schema migration: applied once, in order, recorded in schema_migrations. */
export interface Migration {
  id: string;
  sql: string;
}

/** Seeds one area's data; `scale` multiplies row counts; `rng` is deterministic. */
export type Seeder = (db: DB, opts: { scale: number; rng: () => number; now: Date }) => void;
