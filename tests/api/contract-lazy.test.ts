/**
 * An endpoint's schemas are built the first time one of them is read, once, and a command that
 * calls one endpoint builds no other endpoint's schemas (start-up: README "Design notes").
 */
import { describe, expect, it } from 'vitest';
import { endpoint, lazy, loose, num } from '../../src/api/contract/common.js';
import { z } from '../../src/api/contract/z.js';
import * as services from '../../src/api/contract/admin-services.js';

const built = (e: object, key: string) => 'value' in Object.getOwnPropertyDescriptor(e, key)!;

describe('lazily built contract schemas', () => {
  it('importing a contract file builds no endpoint schemas; reading one builds only that endpoint, once', () => {
    for (const e of services.serviceEndpoints) expect(built(e, 'response'), e.name).toBe(false);
    const query = services.servicesList.query!;
    expect(query.shape.page_size.parse(undefined)).toBe(20);
    expect(services.servicesList.query).toBe(query);
    for (const k of ['params', 'query', 'body', 'response']) expect(built(services.servicesList, k), k).toBe(true);
    for (const e of services.serviceEndpoints.filter((x) => x !== services.servicesList)) expect(built(e, 'query'), e.name).toBe(false);
    // The list and its /list variant share their pieces: the second builds them no more.
    expect(services.servicesListAlt.response.shape.services).not.toBe(undefined);
    expect(services.servicesListAlt.response.shape.pagination).toBe(services.servicesList.response.shape.pagination);
  });

  it('an endpoint without a body says so once built, and its fields enumerate as plain data', () => {
    const e = services.servicesDetail;
    expect(e.body).toBeUndefined();
    expect(e.params).toBeUndefined();
    expect(Object.keys(e)).toEqual(expect.arrayContaining(['name', 'method', 'path', 'query', 'response']));
    expect(() => {
      (e as { query: unknown }).query = undefined;
    }).toThrow(TypeError);
  });

  it('lazy() builds on the first call and returns the same value after', () => {
    let calls = 0;
    const Thing = lazy(() => {
      calls++;
      return loose({ a: num() });
    });
    expect(calls).toBe(0);
    expect(Thing()).toBe(Thing());
    expect(calls).toBe(1);
  });

  it('an endpoint given its schemas outright keeps them as given', () => {
    const query = z.object({ n: z.number() });
    const e = endpoint({
      name: 't.x',
      area: 'admin',
      method: 'GET',
      path: '/x',
      summary: 'x',
      query,
      response: z.unknown(),
      access: 'admin',
    });
    expect(e.query).toBe(query);
  });
});
