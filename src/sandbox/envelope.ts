/**
 * The sandbox's answers: the envelope `{status, message, data, error, meta}` of a success and
 * of an error, with the `data` the user/auth/CMS area's errors carry.
 */
import type { z } from 'zod';
import type { AnyEndpoint } from '../api/contract/common.js';
import { SandboxError } from './types.js';

type Json = Record<string, unknown>;
export type FieldError = { field: string; message: string };

/** The success envelope as UTF-8. */
export function encodeOk(message: string, data: unknown): Buffer {
  return Buffer.from(JSON.stringify({ status: true, message, data: data === undefined ? null : data, error: null, meta: null }), 'utf8');
}

export function envelopeError(
  message: string,
  code: string,
  fields?: FieldError[],
  extra?: Record<string, unknown>,
  data: Json | null = null,
): Json {
  const error: Json = { code, message };
  if (fields && fields.length) error.fields = fields;
  if (extra) Object.assign(error, extra);
  return { status: false, message, data, error, meta: null };
}

/** A refused login's `login_result`: the login_history status (a successful login answers SUCCESS). */
const LOGIN_RESULT: Record<string, string> = { ACCOUNT_BANNED: 'BLOCKED', ACCOUNT_INACTIVE: 'BLOCKED' };

/**
 * The `data` of an error answer to endpoint `e`. The user/auth/CMS specification has its
 * responses carry `error_code` and `message`, and login `login_result`, `error_code` and
 * `error_message` (point 8; its result shapes list them): that area's errors answer them in
 * `data` (`{success: false, error_code, message}`; login `{login_result, error_code,
 * error_message}`), beside the envelope's `error`, which stays as it is (clients read
 * `error.code` and `message`). The administrator area's errors, and those of no endpoint
 * (404, 405), keep `data: null`.
 */
export function errorData(e: AnyEndpoint | undefined, code: string, message: string): Json | null {
  if (e?.area !== 'user') return null;
  if (e.name === 'auth.login') return { login_result: LOGIN_RESULT[code] ?? 'FAILED', error_code: code, error_message: message };
  return { success: false, error_code: code, message };
}

export function validationError(fields: FieldError[]): SandboxError {
  const message = `Validation failed: ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`;
  return new SandboxError(400, message, 'VALIDATION_ERROR', fields);
}

export function zodFields(error: z.ZodError, root: string): FieldError[] {
  return error.issues.map((i) => ({ field: i.path.length ? i.path.map(String).join('.') : root, message: i.message }));
}
