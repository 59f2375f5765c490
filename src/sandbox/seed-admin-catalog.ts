/**
 * The administrator area's seeded catalog: the services, the plans and which plans each
 * service offers (seed-admin-data.ts), with their authors and dates drawn.
 */
import { LINKS, SEED_PLANS, SEED_SERVICES, type PlanSeed } from './seed-admin-data.js';
import { DAY, iso, type Catalog, type Draw, type Link } from './seed-admin-model.js';
import type { DB } from './types.js';

function seedServices(db: DB, d: Draw, admins: number[]): Map<string, number> {
  const { nowMs, pick, int } = d;
  const insService = db.prepare(
    `INSERT INTO services (service_code, service_name, service_type, provider_name, description, base_service_url, access_pattern,
       credit_reset_cycle, is_active, requires_auth, report_type, created_by, updated_by, created_date, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const serviceIds = new Map<string, number>();
  SEED_SERVICES.forEach((s, i) => {
    const created = nowMs - (760 - i * 9) * DAY;
    const updated = created + int(1, 300) * DAY;
    const slug = s.code.toLowerCase();
    const r = insService.run(
      s.code,
      s.name,
      s.type,
      s.provider,
      s.description,
      `https://api.sandbox.local/v1/${slug}`,
      s.type === 'TIME_BASED' ? '/chat/*' : s.type === 'USAGE_BASED' ? `/${slug}/invoke` : `/${slug}/*, /reports/*`,
      s.cycle,
      s.active === false ? 0 : 1,
      s.requiresAuth === false ? 0 : 1,
      s.reportType ?? 'api',
      pick(admins),
      pick(admins),
      iso(created),
      iso(Math.min(updated, nowMs - DAY)),
    );
    serviceIds.set(s.code, Number(r.lastInsertRowid));
  });
  return serviceIds;
}

function seedPlans(db: DB, d: Draw, admins: number[]): Map<string, PlanSeed & { id: number }> {
  const { nowMs, pick, int } = d;
  const insPlan = db.prepare(
    `INSERT INTO subscription_plans (plan_code, plan_name, description, price, currency, duration, duration_unit, credit_amount, credit_unit,
       max_usage_per_day, auto_renewal, is_active, created_by, updated_by, created_date, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const plans = new Map<string, PlanSeed & { id: number }>();
  SEED_PLANS.forEach((p, i) => {
    const created = nowMs - (750 - i * 11) * DAY;
    const r = insPlan.run(
      p.code,
      p.name,
      p.description ?? null,
      p.price,
      p.currency ?? 'USD',
      p.duration,
      p.unit,
      p.credits,
      p.creditUnit,
      p.maxPerDay,
      p.autoRenewal ? 1 : 0,
      p.active === false ? 0 : 1,
      pick(admins),
      pick(admins),
      iso(created),
      iso(Math.min(created + int(1, 200) * DAY, nowMs - DAY)),
    );
    plans.set(p.code, { ...p, id: Number(r.lastInsertRowid) });
  });
  return plans;
}

function seedLinks(
  db: DB,
  d: Draw,
  admins: number[],
  serviceIds: Map<string, number>,
  plans: Map<string, PlanSeed & { id: number }>,
): Link[] {
  const { rng, nowMs, pick, int } = d;
  const insLink = db.prepare(
    'INSERT INTO service_plans (service_id, plan_id, is_available, created_by, created_date, last_updated) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const links: Link[] = [];
  for (const s of SEED_SERVICES) {
    for (const code of LINKS[s.code]) {
      const plan = plans.get(code)!;
      const created = nowMs - int(380, 730) * DAY;
      const available = s.active === false || plan.active === false ? 0 : rng() < 0.88 ? 1 : 0;
      const r = insLink.run(serviceIds.get(s.code), plan.id, available, pick(admins), iso(created), iso(created + int(0, 300) * DAY));
      // Popular services and cheap plans sell more.
      const weight = (s.code === 'GPT4' || s.code === 'CLAUDE3' ? 3 : 1) * (plan.price < 50 ? 2 : 1) * (available ? 1 : 0.3);
      links.push({ id: Number(r.lastInsertRowid), serviceId: serviceIds.get(s.code)!, plan, created, weight });
    }
  }
  return links;
}

/** Inserts the services, plans and links; answers them with a weighted draw of a link. */
export function seedCatalog(db: DB, d: Draw, admins: number[]): Catalog {
  const serviceIds = seedServices(db, d, admins);
  const plans = seedPlans(db, d, admins);
  const links = seedLinks(db, d, admins, serviceIds, plans);
  const linkCum: number[] = [];
  let wsum = 0;
  for (const l of links) linkCum.push((wsum += l.weight));
  const pickLink = () => {
    const x = d.rng() * wsum;
    let lo = 0;
    let hi = linkCum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (linkCum[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return links[lo];
  };
  return { serviceIds, pickLink };
}
