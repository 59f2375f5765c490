/**
 * routes.ts repeats the contract without building its schemas (the sandbox and `subctl api`
 * route with it): it must say exactly what the contract says, entry for entry.
 */
import { describe, expect, it } from 'vitest';
import { endpoints, matchEndpoint } from '../../src/api/contract/index.js';
import { loadContractFile, loadEndpoint, matchRoute, routes } from '../../src/api/contract/routes.js';

describe('the route table', () => {
  it('lists every endpoint of the contract, in its order, with its method and path', () => {
    expect(routes.map(([method, path, name]) => ({ method, path, name }))).toEqual(
      endpoints.map((e) => ({ method: e.method, path: e.path, name: e.name })),
    );
  });

  it('names for each endpoint the contract file that declares it', async () => {
    for (const [, , name, file] of routes) {
      const declared = await loadContractFile(file);
      expect(
        declared.map((e) => e.name),
        `${name} in ${file}`,
      ).toContain(name);
    }
    expect(await loadEndpoint('services.list')).toBe(endpoints.find((e) => e.name === 'services.list'));
    await expect(loadEndpoint('nope.nothing')).rejects.toThrow(/no endpoint named/);
  });

  it('routes every endpoint path as matchEndpoint does, ids and literal segments alike', () => {
    for (const e of endpoints) {
      const concrete = e.path.replace(/\{[^}]+\}/g, '42');
      const byRoute = matchRoute(e.method, concrete);
      const byContract = matchEndpoint(e.method, concrete);
      expect(byRoute?.name, `${e.method} ${concrete}`).toBe(byContract?.endpoint.name);
      expect(byRoute?.params).toEqual(byContract?.params);
    }
    // The most literal segments win: /cms/roles/users is not /cms/roles/{id} with id "users".
    const literal = routes.find(
      ([m, p]) =>
        m === 'GET' &&
        !p.includes('{') &&
        routes.some(
          ([m2, p2]) =>
            m2 === 'GET' && p2.includes('{') && p2.split('/').length === p.split('/').length && p2.split('/')[1] === p.split('/')[1],
        ),
    );
    if (literal) expect(matchRoute('GET', literal[1])?.name).toBe(literal[2]);
    expect(matchRoute('GET', '/no/such/path')).toBeUndefined();
    expect(matchRoute('PATCH', '/admin/services')).toBeUndefined();
  });
});
