/**
 * The catalog's model without a platform: values as a tolerant client may hand them over
 * (numbers as text, flags as 0/1) compare equal to the file's; JSON files are read with line and
 * column too; the plan's order puts links after what they name and prunes in reverse.
 */
import { describe, expect, it } from 'vitest';
import { diffCatalog } from '../../src/catalog/diff.js';
import { CatalogFileError, parseCatalog } from '../../src/catalog/file.js';
import { emptyCatalog, keyOf, pick } from '../../src/catalog/model.js';
import type { PlatformState } from '../../src/catalog/read.js';

function platform(rows: {
  services?: Record<string, unknown>[];
  plans?: Record<string, unknown>[];
  links?: Record<string, unknown>[];
}): PlatformState {
  const state: PlatformState = {
    catalog: emptyCatalog(),
    facts: { services: new Map(), plans: new Map(), links: new Map(), roles: new Map() },
  };
  let id = 1;
  for (const kind of ['services', 'plans', 'links'] as const) {
    for (const r of rows[kind] ?? []) {
      const e = pick(kind, r);
      state.catalog[kind].push(e);
      state.facts[kind].set(keyOf(kind, e), { id: id++, active: Number(r.active ?? 0) });
    }
  }
  return state;
}

describe('catalog model', () => {
  it('a price "19.90" and a flag 1 from the platform equal 19.9 and true in the file: no change', () => {
    const file = parseCatalog('c.yaml', 'plans:\n  - plan_code: pro-m\n    price: 19.9\n    is_active: true\n    max_usage_per_day: 100\n');
    const plan = diffCatalog(
      file.catalog,
      platform({ plans: [{ plan_code: 'PRO-M', price: '19.90', is_active: 1, max_usage_per_day: '100', plan_name: 'Pro' }] }),
      { kinds: file.kinds },
    );
    expect(plan.changes).toEqual([]);
  });

  it('orders creates before links and prunes links before plans and services', () => {
    const file = parseCatalog(
      'c.yaml',
      'links:\n  - {service_code: S1, plan_code: P2, is_available: true}\nplans:\n  - {plan_code: P2, plan_name: Two, price: 2, currency: USD, duration: 1, duration_unit: days, credit_amount: 1, credit_unit: requests}\nservices: []\n',
    );
    const state = platform({
      services: [{ service_code: 'S1' }, { service_code: 'OLD', active: 3 }],
      plans: [{ plan_code: 'P1' }],
      links: [{ service_code: 'OLD', plan_code: 'P1', is_available: true }],
    });
    const plan = diffCatalog(file.catalog, state, { kinds: file.kinds, prune: true });
    expect(plan.changes.map((c) => `${c.op} ${c.kind} ${c.label}${c.needsForce ? ' (force)' : ''}`)).toEqual([
      'create plans P2',
      'create links S1/P2',
      'delete links OLD/P1',
      'delete plans P1',
      'delete services S1',
      'delete services OLD (force)',
    ]);
  });

  it('reads JSON, and its errors carry line and column', () => {
    const text = '{\n  "plans": [\n    {"plan_code": "P1", "price": -1}\n  ]\n}\n';
    expect(() => parseCatalog('c.json', text)).toThrow(CatalogFileError);
    try {
      parseCatalog('c.json', text);
    } catch (e) {
      expect((e as CatalogFileError).problems).toEqual([
        { file: 'c.json', line: 3, column: 34, message: 'plans[0].price: Too small: expected number to be >=0' },
      ]);
    }
  });
});
