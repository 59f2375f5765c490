/** Masking of secrets for `--verbose` lines and error messages (src/api/redact.ts). */
import { describe, expect, it } from 'vitest';
import { isSecretKey, redactBody, redactBodyText, redactHeaders, redactUrl } from '../../src/api/redact.js';

describe('redactHeaders', () => {
  it('masks authorization (keeping the scheme), x-session-id and cookies; keeps x-device-id', () => {
    expect(
      redactHeaders({
        Authorization: 'Bearer tok-1',
        'X-Session-ID': 'sess-1',
        cookie: 'a=b',
        'set-cookie': ['sid=1', 'x=2'],
        'x-device-id': 'dev-1',
        'content-length': 12,
        'x-none': undefined,
      }),
    ).toEqual({
      authorization: 'Bearer ***',
      'x-session-id': '***',
      cookie: '***',
      'set-cookie': '***',
      'x-device-id': 'dev-1',
      'content-length': '12',
    });
    expect(redactHeaders({ authorization: 'weird-token' })).toEqual({ authorization: '***' });
    expect(redactHeaders(undefined)).toEqual({});
  });
});

describe('redactBody', () => {
  it('masks password, token and session fields at any depth, whatever their spelling', () => {
    const input = {
      username: 'ann',
      password: 'p1',
      old_password: 'p2',
      new_password: 'p3',
      nested: { token: 't1', reset_token: 't2', refresh_token: 't3', session_id: 's1', list: [{ newPassword: 'p4' }] },
      device_id: 'd1',
      empty_password: '',
    };
    expect(redactBody(input)).toEqual({
      username: 'ann',
      password: '***',
      old_password: '***',
      new_password: '***',
      nested: { token: '***', reset_token: '***', refresh_token: '***', session_id: '***', list: [{ newPassword: '***' }] },
      device_id: 'd1',
      empty_password: '',
    });
    expect(input.password).toBe('p1');
    expect(redactBody('plain')).toBe('plain');
    expect(redactBody(null)).toBeNull();
  });

  it('isSecretKey', () => {
    expect(['password', 'Password', 'confirm_password', 'token', 'accessToken', 'session_id', 'sessionId'].every(isSecretKey)).toBe(true);
    expect(['username', 'device_id', 'service_code', 'token_count_x'].some(isSecretKey)).toBe(false);
  });
});

describe('redactUrl and redactBodyText', () => {
  it('masks secret query values and URL credentials', () => {
    expect(redactUrl('https://h/api/x?token=abc&page=2')).toBe('https://h/api/x?token=***&page=2');
    expect(redactUrl('https://user:pw@h/x')).toBe('https://***:***@h/x');
    expect(redactUrl('https://h/x?page=2')).toBe('https://h/x?page=2');
  });

  it('redacts JSON bodies and form-like text, and cuts long bodies', () => {
    expect(redactBodyText('{"username":"a","password":"pw-1"}')).toBe('{"username":"a","password":"***"}');
    expect(redactBodyText('username=a&password=pw-2&x=1')).toBe('username=a&password=***&x=1');
    const long = redactBodyText(JSON.stringify({ a: 'x'.repeat(5000) }), 100);
    expect(long.length).toBeLessThan(130);
    expect(long).toMatch(/\.\.\. \(\d+ chars\)$/);
  });
});
