/**
 * `subctl auth`: sign in and out. Passwords come from a masked prompt on a terminal or from
 * stdin with --password-stdin, never from argv. Tokens are stored per profile (OS keyring, or a
 * 0600 file when no keyring answers).
 */
import { reaches } from '../../cli/verbs.js';
import type { Group } from '../types.js';
import { buildAccountVerbs } from './account.js';
import { buildLogin, buildLogout, buildRefresh } from './sign-in.js';
import { buildStatus } from './status.js';

export const authGroup: Group = {
  name: 'auth',
  build(cmd, bind) {
    buildLogin(cmd, bind);
    buildLogout(cmd, bind);
    buildRefresh(cmd, bind);
    buildStatus(cmd, bind);
    buildAccountVerbs(cmd, bind);
    // The commands written by hand, and the endpoints each one calls.
    const by = (name: string) => cmd.commands.find((c) => c.name() === name)!;
    reaches(by('login'), 'auth.login', 'cms.auth.login --cms');
    reaches(by('logout'), 'auth.logout', 'cms.auth.logout');
    reaches(by('refresh'), 'auth.refresh');
    reaches(by('status'), 'auth.validate-session');
    reaches(by('forgot-password'), 'cms.auth.request-reset --cms');
    reaches(by('reset-password'), 'auth.reset-password', 'cms.auth.reset-password-token --cms');
    reaches(by('change-password'), 'auth.change-password', 'cms.auth.change-password --cms');
    reaches(by('verify'), 'cms.verification.generate --send', 'cms.verification.verify --code');
  },
};
