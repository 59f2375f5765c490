/**
 * `subctl audit`: the audit log, with --follow (spec/admin-area.md point 7).
 */
import { Option } from 'commander';
import { auditList, auditUser } from '../../api/contract/admin-misc.js';
import { verbsBuilder } from '../../cli/verbs.js';
import type { Group } from '../types.js';
import { auditFollow } from './audit-follow.js';
import { AUDIT_COLUMNS } from './common.js';

export const auditGroup: Group = {
  name: 'audit',
  build: (cmd, bind) => {
    verbsBuilder(() => [
      {
        name: 'list',
        examples: ['subctl audit list --module subscriptions --action manage --start-date 2026-11-01 --page-size 100', 'subctl audit list --follow'],
        endpoint: auditList,
        columns: AUDIT_COLUMNS,
        aliases: ['ls'],
        extraOptions: [new Option('--follow', 'poll for new entries and print only those, until Ctrl-C'), new Option('--interval <s>', 'seconds between polls with --follow').default('2')],
      },
      {
        name: 'user',
        examples: ['subctl audit user 17 --follow', 'subctl audit user 17 --start-date 2026-11-01 -o json'],
        endpoint: auditUser,
        args: ['id'],
        columns: AUDIT_COLUMNS,
        extraOptions: [new Option('--follow', 'poll for new entries and print only those, until Ctrl-C'), new Option('--interval <s>', 'seconds between polls with --follow').default('2')],
      },
    ].map((s) => ({ ...s, override: auditFollow(s.endpoint, s.columns) })))(cmd, bind);
  },
};
