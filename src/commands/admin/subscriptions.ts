/**
 * `subctl subscriptions`: list, manage, delete (spec/admin-area.md point 7).
 */
import { subscriptionsDelete, subscriptionsList, subscriptionsManage } from '../../api/contract/admin-subscriptions.js';
import { verbsBuilder, type VerbInput } from '../../cli/verbs.js';
import type { Group } from '../types.js';
import { SUBSCRIPTION_COLUMNS } from './common.js';
import { manageSubscription } from './subscription-manage.js';

export const subscriptionsGroup: Group = {
  name: 'subscriptions',
  summary: "users' subscriptions: list, manage (extend, pause, resume, cancel, add credits), delete",
  aliases: ['subs'],
  build: (cmd, bind) => {
    verbsBuilder(() => [
      { name: 'list', endpoint: subscriptionsList, columns: SUBSCRIPTION_COLUMNS, aliases: ['ls'] },
      {
        name: 'delete',
        endpoint: subscriptionsDelete,
        args: ['subscription_id?'],
        destructive: true,
        describe: (i: VerbInput) => `delete subscription(s) ${JSON.stringify(i.body)}`,
      },
    ])(cmd, bind);
    manageSubscription(cmd, bind, subscriptionsManage);
  },
};
