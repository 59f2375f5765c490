/**
 * Every endpoint of both specification documents is reachable from a command of its own, not
 * only through `subctl api` (three `/list` variants were), and `api endpoints` names it.
 */
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../src/api/contract/index.js';
import { runCli } from '../support/run-cli.js';

describe('every endpoint has a command', () => {
  it('api endpoints names a command for each of the 95, and each one exists (its --help answers)', async () => {
    const r = await runCli('api endpoints -o json');
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ name: string; command: string | null }>;
    expect(rows.map((e) => e.name)).toEqual(endpoints.map((e) => e.name));
    expect(rows).toHaveLength(95);
    expect(rows.filter((e) => e.command === null).map((e) => e.name)).toEqual([]);
    expect(rows.find((e) => e.name === 'services.list-alt')!.command).toBe('subctl services list-alt');
    // The flag that picks an endpoint of a hand-written command is named with it.
    expect(rows.find((e) => e.name === 'cms.auth.login')!.command).toBe('subctl auth login --cms');
    expect(rows.find((e) => e.name === 'cms.verification.verify')!.command).toBe('subctl auth verify --code');
    for (const command of new Set(rows.map((e) => e.command!))) {
      const words = command.replace(/^subctl /, '').split(' ');
      const verb = words.filter((w) => !w.startsWith('--')).join(' ');
      const help = await runCli(`${verb} --help`);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toContain(`Usage: subctl ${verb}`);
      // The flag it names is one of the command's.
      for (const flag of words.filter((w) => w.startsWith('--'))) expect(help.stdout, command).toContain(flag);
    }
  }, 60_000);

  it('the list-alt verbs send the /list paths, with their filters', async () => {
    for (const [line, request] of [
      ['services list-alt --service-type HYBRID', '/admin/services/list?service_type=HYBRID&'],
      ['plans list-alt --duration-unit years', '/admin/subscription-plans/list?duration_unit=years&'],
      ['subscriptions list-alt --status paused', '/admin/subscriptions/list?status=paused&'],
    ]) {
      // Lists take no --dry-run: the request is seen with --verbose against the sandbox.
      const v = await runCli(`--sandbox ${line} --limit 1 --verbose -o json`);
      expect(v.code, v.stderr).toBe(0);
      expect(v.stderr).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\//);
      expect(v.stderr).toContain(request);
      expect(JSON.parse(v.stdout)).toHaveLength(1);
    }
  }, 60_000);
});
