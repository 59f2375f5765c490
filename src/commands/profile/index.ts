/**
 * `subctl profile get|update` (/cms/users/profile) and `subctl devices list|remove`
 * (/cms/users/devices*): the signed-in account's own profile and devices.
 */
import { devicesList, devicesRemove, profileGet, profileUpdate } from '../../api/contract/user-accounts.js';
import { CliError, UsageError } from '../../api/errors.js';
import { MASK } from '../../api/redact.js';
import { listRows } from '../../cli/paging.js';
import type { Ctx } from '../../cli/context.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import { printList, printObject } from '../../output/index.js';
import { out, section } from '../common.js';
import type { Group } from '../types.js';
import { readBoolean } from '../../api/read-values.js';

const DEVICE_COLUMNS = [
  'current',
  'device_id',
  'device_name',
  'device_type',
  'ip_address',
  'is_currently_logged_in',
  'last_activity_time',
  'last_login_date',
];

function heading(ctx: Ctx, title: string) {
  ctx.io.stdout.write(`\n${ctx.color('stdout') ? `\u001b[1m${title}\u001b[22m` : title}\n`);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The profile: basic info, then login history, permissions and how the account was referred. */
async function renderProfile(data: Record<string, unknown>, ctx: Ctx) {
  if (ctx.globals.output !== 'table' || !isRecord(data) || !isRecord(data.basic_info)) return printObject(data, out(ctx));
  // Identity first; the rest in the order the answer has it.
  const basic = data.basic_info;
  const lead = Object.fromEntries(
    ['user_id', 'username', 'full_name', 'email', 'role', 'status'].filter((k) => k in basic).map((k) => [k, basic[k]]),
  );
  await printObject({ ...lead, ...basic }, out(ctx));
  if (isRecord(data.profile) && Object.keys(data.profile).length) {
    heading(ctx, 'Profile');
    await printObject(data.profile, out(ctx));
  }
  await section(ctx, 'Login history', data.login_history, ['login_time', 'login_status', 'ip_address', 'user_agent']);
  await section(ctx, 'Permissions', data.permissions, ['permission_name', 'granted_by_username', 'granted_date']);
  if (Array.isArray(data.referral_info)) await section(ctx, 'Referred by', data.referral_info);
  else if (isRecord(data.referral_info)) {
    heading(ctx, 'Referred by');
    await printObject(data.referral_info, out(ctx));
  }
}

export const profileGroup: Group = {
  name: 'profile',
  build: verbsBuilder(() => [
    {
      name: 'get',
      examples: ['subctl profile get', 'subctl profile get -o json'],
      endpoint: profileGet,
      aliases: ['show'],
      render: renderProfile,
    },
    {
      name: 'update',
      examples: ['subctl profile update --full-name "Siobhan Anderson" --city Dublin --country IE'],
      endpoint: profileUpdate,
      summary: 'update the profile: --full-name, which the API requires, and the other fields to set',
      bulk: false,
      // The API requires full_name: refused before any request when it is missing (reading the
      // current one first sent a GET, then exit 2 when the profile had none).
      prepare: async (input) => {
        if (input.body.full_name !== undefined) return;
        // Every field's problem at once, full_name's among them.
        const { validateInput } = await import('../../api/client.js');
        try {
          validateInput(profileUpdate, input);
        } catch (e) {
          if (e instanceof CliError) e.hint = '`subctl profile get` shows the current full name; give it again with --full-name "..."';
          throw e;
        }
        throw new UsageError('invalid input: full_name (--full-name): required (the API replaces the profile and requires it)', {
          hint: '`subctl profile get` shows the current full name; give it again with --full-name "..."',
        });
      },
    },
  ]),
};

export const devicesGroup: Group = {
  name: 'devices',
  build: verbsBuilder(() => [
    {
      name: 'list',
      examples: ['subctl devices list', 'subctl devices list --include-inactive true -o json'],
      endpoint: devicesList,
      aliases: ['ls'],
      summary: 'devices and sessions of the signed-in account; the current one is marked * (--include-inactive for all)',
      render: async (data: Record<string, unknown>, ctx) => {
        // A session id and a device token are credentials (the session id signs CMS requests):
        // masked, as --verbose and auth login's output keep them out.
        const found = listRows(ctx, devicesList, data, 'devices');
        if (!found) return void (await printObject(data, out(ctx)));
        const devices = found.map((d) => {
          const m = { ...d };
          for (const k of ['session_id', 'device_token']) if (typeof m[k] === 'string' && m[k] !== '') m[k] = MASK;
          return m;
        });
        if (ctx.globals.output === 'json' || ctx.globals.output === 'ndjson') {
          await printList(devices, out(ctx));
          return;
        }
        // The server marks the caller's device; the profile's own device id is the fallback.
        const mine = ctx.profile()?.device_id;
        const rows = devices.map((d) => ({
          current: readBoolean(d.is_current_device) === true || (mine !== undefined && String(d.device_id) === mine) ? '*' : '',
          ...d,
        }));
        await printList(rows, out(ctx, DEVICE_COLUMNS));
      },
    },
    {
      name: 'remove',
      examples: ['subctl devices remove 9 --yes'],
      endpoint: devicesRemove,
      aliases: ['rm'],
      args: ['id'],
      summary: 'remove a device (by device id or row id): ends its session',
      destructive: true,
      describe: (i: VerbInput) => `remove device ${String(i.params.id)} and end its session`,
      prepare: (input, ctx) => {
        if (String(input.params.id) === ctx.profile()?.device_id)
          ctx.note('note: this is the device of this profile; its session ends too');
      },
    },
  ]),
};
