/**
 * Fault injection: parsing the command-line form, the draw, and the faults over real HTTP at
 * roughly the rates asked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { decideChaos, parseChaos } from '../../src/sandbox/chaos.js';
import { mulberry32 } from '../../src/sandbox/seed.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { closeAllTestSandboxes, startTestSandbox } from '../support/sandbox.js';

afterAll(closeAllTestSandboxes);

describe('parseChaos', () => {
  it('parses the documented form', () => {
    expect(parseChaos('latency=0-50,5xx=0.2,reset=0.05,hang=0.02,429=0.05')).toEqual({
      latencyMs: [0, 50],
      error5xx: 0.2,
      reset: 0.05,
      hang: 0.02,
      rate429: 0.05,
    });
    expect(parseChaos(' latency=20 , 429=10% , retry-after=3 ')).toEqual({ latencyMs: [20, 20], rate429: 0.1, retryAfterSeconds: 3 });
    expect(parseChaos('')).toEqual({});
    expect(parseChaos('audit=oldest,applied-503=0.1')).toEqual({ auditOldestFirst: true, appliedError: 0.1 });
    expect(parseChaos('audit=newest')).toEqual({ auditOldestFirst: false });
  });

  it('names the bad part', () => {
    expect(() => parseChaos('5xx=2')).toThrow(/5xx=2: expected a rate between 0 and 1/);
    expect(() => parseChaos('latency=50-10')).toThrow(/maximum is below the minimum/);
    expect(() => parseChaos('latency=fast')).toThrow(/latency=fast/);
    expect(() => parseChaos('boom=0.1')).toThrow(/unknown key 'boom'/);
    expect(() => parseChaos('reset')).toThrow(/expected key=value/);
    expect(() => parseChaos('5xx=0.6,429=0.6')).toThrow(/add up to 1.20/);
    expect(() => parseChaos('audit=random')).toThrow(/audit=random: expected oldest or newest/);
  });
});

describe('decideChaos', () => {
  it('draws each fault at its rate, exclusively', () => {
    const rng = mulberry32(1);
    const counts: Record<string, number> = {};
    const N = 20_000;
    for (let i = 0; i < N; i++) {
      const d = decideChaos({ error5xx: 0.2, reset: 0.05, hang: 0.02, rate429: 0.05, latencyMs: [10, 20] }, rng);
      expect(d.delayMs).toBeGreaterThanOrEqual(10);
      expect(d.delayMs).toBeLessThanOrEqual(20);
      counts[String(d.fault)] = (counts[String(d.fault)] ?? 0) + 1;
    }
    expect(counts['5xx'] / N).toBeCloseTo(0.2, 1);
    expect(counts.reset / N).toBeCloseTo(0.05, 1);
    expect(counts.hang / N).toBeCloseTo(0.02, 1);
    expect(counts['429'] / N).toBeCloseTo(0.05, 1);
    expect(counts.null / N).toBeCloseTo(0.68, 1);
  });
});

describe('faults over HTTP', () => {
  it('503, 429 with Retry-After and resets at roughly the given rates, after the latency', async () => {
    const sb = await startTestSandbox({ chaos: { error5xx: 0.2, rate429: 0.1, reset: 0.05, latencyMs: [2, 4], retryAfterSeconds: 3 } });
    const token = sb.tokenFor('admin');
    const agent = new Agent({ connections: 8 });
    const N = 400;
    const tally: Record<string, number> = {};
    let minMs = Infinity;
    await Promise.all(
      Array.from({ length: N }, async () => {
        const t0 = performance.now();
        try {
          const r = await request(`${sb.url}/admin/services?page_size=1`, {
            headers: { authorization: `Bearer ${token}` },
            dispatcher: agent,
          });
          const body = (await r.body.json()) as { status: boolean; error: { code: string } | null };
          const key = String(r.statusCode);
          tally[key] = (tally[key] ?? 0) + 1;
          if (r.statusCode === 429) {
            expect(r.headers['retry-after']).toBe('3');
            expect(body.error?.code).toBe('RATE_LIMITED');
          }
          if (r.statusCode === 503) expect(body).toMatchObject({ status: false, error: { code: 'SERVICE_UNAVAILABLE' } });
        } catch (err) {
          tally.reset = (tally.reset ?? 0) + 1;
          expect((err as { code?: string }).code).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
        }
        minMs = Math.min(minMs, performance.now() - t0);
      }),
    );
    await agent.close();
    expect(Object.values(tally).reduce((a, b) => a + b, 0)).toBe(N);
    expect(tally['503'] / N).toBeGreaterThan(0.12);
    expect(tally['503'] / N).toBeLessThan(0.28);
    expect(tally['429'] / N).toBeGreaterThan(0.05);
    expect(tally['429'] / N).toBeLessThan(0.16);
    expect(tally.reset / N).toBeGreaterThan(0.01);
    expect(tally.reset / N).toBeLessThan(0.1);
    expect(tally['200'] / N).toBeGreaterThan(0.55);
    expect(minMs).toBeGreaterThanOrEqual(1.5);
    await sb.close();
  });

  it('a hang never answers, and close() still ends promptly', async () => {
    const sb = await startTestSandbox({ chaos: { hang: 1 } });
    const t0 = performance.now();
    await expect(request(`${sb.url}/admin/services`, { headersTimeout: 300 })).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    const pending = request(`${sb.url}/admin/services`).catch((e: { code?: string }) => e.code);
    await new Promise((r) => setTimeout(r, 50));
    const c0 = performance.now();
    await sb.close();
    expect(performance.now() - c0).toBeLessThan(5000);
    expect(await pending).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
  });

  it('audit=oldest: /audit, /audit/users/{id} and the dashboard serve the log oldest first; without it, newest first', async () => {
    const ids = async (sb: Sandbox, path: string, pick: (d: Record<string, unknown>) => unknown) => {
      const r = await request(`${sb.url}${path}`, { headers: { authorization: `Bearer ${sb.tokenFor('admin')}` } });
      const body = (await r.body.json()) as { data: Record<string, unknown> };
      return (pick(body.data) as Array<{ id: number }>).map((e) => e.id);
    };
    for (const oldest of [true, false]) {
      const sb = await startTestSandbox({ chaos: { auditOldestFirst: oldest } });
      // The user with the most audit entries, for /audit/users/{id}.
      const user = (
        sb.db.prepare('SELECT user_id FROM audit_logs WHERE user_id IS NOT NULL GROUP BY user_id ORDER BY COUNT(*) DESC LIMIT 1').get() as {
          user_id: number;
        }
      ).user_id;
      const all = (sb.db.prepare('SELECT id FROM audit_logs ORDER BY id').all() as Array<{ id: number }>).map((r) => r.id);
      expect(all.length).toBeGreaterThan(20);
      const want = (list: number[]) => (oldest ? list : [...list].reverse());
      expect(await ids(sb, '/audit?page=1&page_size=20', (d) => d.logs)).toEqual(want(all).slice(0, 20));
      expect(await ids(sb, '/admin/dashboard', (d) => d.recent_activity)).toEqual(want(all).slice(0, 10));
      const own = (sb.db.prepare('SELECT id FROM audit_logs WHERE user_id = ? ORDER BY id').all(user) as Array<{ id: number }>).map(
        (r) => r.id,
      );
      expect(own.length).toBeGreaterThan(1);
      expect(await ids(sb, `/audit/users/${user}?page=1&page_size=100`, (d) => d.logs)).toEqual(want(own).slice(0, 100));
      await sb.close();
    }
  });
});
