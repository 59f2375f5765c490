/** Answers read as the contract's types for tables, CSV and text (src/api/typed.ts). */
import { describe, expect, it } from 'vitest';
import { typedData } from '../../src/api/typed.js';
import { usersList } from '../../src/api/contract/user-accounts-users.js';
import { devicesList } from '../../src/api/contract/user-accounts-profile.js';
import { meServices } from '../../src/api/contract/user-enduser.js';
import { auditList } from '../../src/api/contract/admin-misc.js';

describe('typedData', () => {
  it("a boolean field's 0/1 and text as booleans, a text field's object by its name; the rest as received", () => {
    const data = {
      total_count: '2',
      users: [
        { user_id: '7', role: { role_name: 'admin' }, status: 'Active', is_verified: 1 },
        { user_id: 8, role: 'user', status: { code: 'X' } },
      ],
    };
    expect(typedData(usersList, data)).toEqual({
      total_count: '2',
      users: [
        // is_verified is no field of the contract's user: as received.
        { user_id: '7', role: 'admin', status: 'Active', is_verified: 1 },
        // An object without a name stays an object.
        { user_id: 8, role: 'user', status: { code: 'X' } },
      ],
    });
    const devices = { devices: [{ is_active: 1, is_current_device: '0', is_currently_logged_in: 'maybe' }], device_count: 1 };
    expect(typedData(devicesList, devices)).toEqual({
      devices: [{ is_active: true, is_current_device: false, is_currently_logged_in: 'maybe' }],
      device_count: 1,
    });
  });

  it('rows sent bare or under another key than the contract names are read as its rows', () => {
    expect(typedData(devicesList, [{ is_active: 0 }])).toEqual([{ is_active: false }]);
    expect(typedData(meServices, { available_services: [{ requires_auth: '1', has_active_subscription: 0 }] })).toEqual({
      available_services: [{ requires_auth: true, has_active_subscription: false }],
    });
  });

  it('an answer with nothing to read differently is the very same object (no copy of a page)', () => {
    const page = { users: [{ user_id: 1, role: 'admin' }], total_count: 1 };
    expect(typedData(usersList, page)).toBe(page);
    expect(typedData(usersList, null)).toBeNull();
  });
});

describe('times sent as numbers since 1970', () => {
  it('seconds, milliseconds and their digits as text become ISO times in UTC; ISO times and other values stay as received', () => {
    const page = {
      logs: [
        { id: 1, created_at: 1764237600 },
        { id: 2, created_at: 1764237600250 },
        { id: 3, created_at: '1764237600' },
        { id: 4, created_at: '2026-11-27T10:00:00Z' },
        { id: 5, created_at: 'yesterday' },
        { id: 6, created_at: -5 },
      ],
    };
    expect(typedData(auditList, page)).toEqual({
      logs: [
        { id: 1, created_at: '2025-11-27T10:00:00Z' },
        { id: 2, created_at: '2025-11-27T10:00:00.250Z' },
        { id: 3, created_at: '2025-11-27T10:00:00Z' },
        { id: 4, created_at: '2026-11-27T10:00:00Z' },
        { id: 5, created_at: 'yesterday' },
        { id: 6, created_at: -5 },
      ],
    });
    // A number in a field that is no time stays a number.
    const plain = { logs: [{ id: 1764237600, created_at: '2026-11-27T10:00:00Z' }] };
    expect(typedData(auditList, plain)).toBe(plain);
  });
});
