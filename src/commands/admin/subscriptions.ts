/**
 * `subctl subscriptions`: list, manage, delete (the API documents' administrator area).
 */
import {
  subscriptionsDelete,
  subscriptionsList,
  subscriptionsListAlt,
  subscriptionsManage,
} from '../../api/contract/admin-subscriptions.js';
import { UsageError } from '../../api/errors.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import type { Group } from '../types.js';
import { SUBSCRIPTION_COLUMNS } from './common.js';
import { manageSubscription } from './subscription-manage.js';

export const subscriptionsGroup: Group = {
  name: 'subscriptions',
  aliases: ['subs'],
  build: (cmd, bind) => {
    verbsBuilder(() => [
      {
        name: 'list',
        examples: [
          'subctl subscriptions list --status active --service-code GPT4 --all -o csv',
          'subctl subscriptions list --username siobhan.anderson',
        ],
        endpoint: subscriptionsList,
        columns: SUBSCRIPTION_COLUMNS,
        aliases: ['ls'],
      },
      {
        name: 'list-alt',
        examples: ['subctl subscriptions list-alt --status paused --page-size 50'],
        endpoint: subscriptionsListAlt,
        columns: SUBSCRIPTION_COLUMNS,
        summary: 'the same list from /admin/subscriptions/list',
      },
      {
        name: 'delete',
        examples: ['subctl subscriptions delete 42 --yes', 'subctl subscriptions delete --user-id 17 --service-id 12 --yes'],
        endpoint: subscriptionsDelete,
        args: ['subscription_id?'],
        destructive: true,
        // Which subscriptions: one by id, or a user's on one service. The specification leaves
        // every identifier optional; a DELETE naming none (or only a user, or only the flags) is
        // not sent to a platform whose answer to it nobody knows.
        prepare: (i) => {
          const b = i.body;
          if (b.subscription_id === undefined && (b.user_id === undefined || b.service_id === undefined)) {
            throw new UsageError(
              'subscriptions delete needs a subscription id (argument or --subscription-id), or --user-id with --service-id',
            );
          }
        },
        describe: (i: VerbInput) => `delete subscription(s) ${JSON.stringify(i.body)}`,
      },
    ])(cmd, bind);
    manageSubscription(cmd, bind, subscriptionsManage);
  },
};
