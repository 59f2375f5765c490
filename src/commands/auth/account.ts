/** The account flows of `auth`: register, forgot-password, reset-password, change-password, verify. */
import { Option, type Command } from 'commander';
import {
  authChangePassword,
  authForgotPassword,
  authResetPassword,
  cmsAuthChangePassword,
  cmsAuthRegister,
  cmsAuthRequestReset,
  cmsAuthResetPasswordToken,
  cmsVerificationGenerate,
  cmsVerificationVerify,
} from '../../api/contract/user-auth.js';
import { UsageError } from '../../api/errors.js';
import { addGlobalOptions } from '../../cli/globals.js';
import { convertValue } from '../../api/contract/convert.js';
import { buildVerb } from '../../cli/verbs.js';
import type { Group } from '../types.js';
import {
  argvSecretTraps,
  checkSecrets,
  passwordStdinOption,
  precheck,
  readNewPassword,
  refuseArgvSecrets,
  secretTrap,
  readStdinLines,
} from './secrets.js';
import { printAnswer } from './answer.js';
import { rememberTarget } from './session.js';

type Bind = Parameters<Group['build']>[1];

/** The profile `auth register` made for its device id (none was there), while it runs. */
let registering: string | undefined;

/** The value of an integer flag, typed (left as text when it is not one, so that validation names it). */
const int = (v: unknown) => convertValue(v, { kind: 'integer', optional: true });

/**
 * register, forgot-password, reset-password, change-password, verify: the account flows of
 * /auth/* and /cms/auth/*. Passwords come from --password-stdin or a masked prompt only; reset
 * tokens and verification codes are flags (one-time values that expire within the hour).
 */
export function buildAccountVerbs(cmd: Command, bind: Bind): void {
  buildRegister(cmd, bind);
  buildForgotPassword(cmd, bind);
  buildResetPassword(cmd, bind);
  buildChangePassword(cmd, bind);
  buildVerify(cmd, bind);
}

function buildRegister(cmd: Command, bind: Bind): void {
  buildVerb(
    cmd,
    {
      name: 'register',
      endpoint: cmsAuthRegister,
      summary: "register a CMS account (sends the profile's X-Device-ID); password from a masked prompt or --password-stdin",
      hide: ['password'],
      bulk: false,
      extraOptions: [passwordStdinOption(), ...argvSecretTraps('password')],
      prepare: async (input, ctx, opts) => {
        refuseArgvSecrets(opts, 'password');
        await precheck(cmsAuthRegister, input, { password: 'password' });
        input.body.password = await readNewPassword(ctx, opts, 'Password');
        // The client sends X-Device-ID from the profile's device_id: make sure there is one.
        registering = ctx.config().getProfile(ctx.profileName()) === undefined ? ctx.profileName() : undefined;
        ctx.config().deviceId(ctx.profileName());
      },
      override: async (input, ctx) => {
        let data: Record<string, unknown> | null;
        try {
          data = ((
            await (await ctx.api({ anonymous: true })).callFull(cmsAuthRegister, { body: input.body } as never, { signal: ctx.signal })
          ).data ?? null) as Record<string, unknown> | null;
        } catch (e) {
          // A registration that failed leaves no profile behind (made here only for its device id).
          if (registering) ctx.config().removeProfile(registering);
          throw e;
        }
        // The profile points where the account is (left without an address, the sign-in it
        // suggests would go to the embedded sandbox).
        const name = ctx.profileName();
        rememberTarget(ctx, name);
        await printAnswer(ctx, { data });
        ctx.note(
          `registered${data?.user_id !== undefined ? ` as user ${String(data.user_id)}` : ''} on profile '${name}'; sign in with \`subctl auth login --profile ${name}\`, then verify the account with \`subctl auth verify --send --type email\``,
        );
        return 0;
      },
    },
    bind,
  );
}

function buildForgotPassword(cmd: Command, bind: Bind): void {
  buildVerb(
    cmd,
    {
      name: 'forgot-password',
      endpoint: authForgotPassword,
      summary: 'request a password reset token by email (--cms: the CMS account, /cms/auth/request-reset)',
      bulk: false,
      extraOptions: [new Option('--cms', 'the CMS account (/cms/auth/request-reset)')],
      override: async (input, ctx, opts) => {
        if (opts.cms !== true) return undefined;
        const api = await ctx.api();
        await printAnswer(ctx, await api.callFull(cmsAuthRequestReset, { body: input.body } as never, { signal: ctx.signal }));
        return 0;
      },
    },
    bind,
  );
}

function buildResetPassword(cmd: Command, bind: Bind): void {
  addGlobalOptions(
    cmd
      .command('reset-password')
      .description(
        'set a new password with the reset token of forgot-password (--cms: the CMS account); new password from a masked prompt or --password-stdin',
      )
      .addOption(new Option('--user-id <id>', 'the account the token was issued for (integer, required without --cms)'))
      .addOption(new Option('--reset-token <token>', 'the one-time reset token (required)'))
      .addOption(new Option('--cms', 'the CMS account (/cms/auth/reset-password-token, no --user-id)'))
      .addOption(passwordStdinOption('the new password'))
      .addOption(secretTrap('password'))
      .addOption(secretTrap('new-password'))
      .action((_o, c) => {
        const opts = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          refuseArgvSecrets(opts, 'password', 'new-password');
          const cms = opts.cms === true;
          if (cms && opts.userId !== undefined)
            throw new UsageError('--user-id is not used with --cms (the CMS reset token names the account)');
          const ep = cms ? cmsAuthResetPasswordToken : authResetPassword;
          const body: Record<string, unknown> = { reset_token: opts.resetToken };
          if (!cms) body.user_id = int(opts.userId);
          const secrets = { new_password: 'new password' };
          await precheck(ep, { body }, secrets);
          body.new_password = await readNewPassword(ctx, opts);
          await checkSecrets(ep, { body }, secrets);
          const api = await ctx.api();
          await printAnswer(ctx, await api.callFull(ep, { body } as never, { signal: ctx.signal }));
        })(opts);
      }),
  );
}

function buildChangePassword(cmd: Command, bind: Bind): void {
  addGlobalOptions(
    cmd
      .command('change-password')
      .description(
        "change the signed-in account's password (--cms: the CMS account); old and new from masked prompts, or two lines of stdin with --password-stdin",
      )
      .addOption(new Option('--cms', 'the CMS account (/cms/auth/change-password)'))
      .addOption(passwordStdinOption('the old password (first line) and the new one (second line)'))
      .addOption(secretTrap('password'))
      .addOption(secretTrap('old-password'))
      .addOption(secretTrap('new-password'))
      .action((_o, c) => {
        const opts = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          refuseArgvSecrets(opts, 'password', 'old-password', 'new-password');
          const ep = opts.cms === true ? cmsAuthChangePassword : authChangePassword;
          let old: string;
          let next: string;
          if (opts.passwordStdin) {
            [old, next] = await readStdinLines(ctx, 2, '--password-stdin');
          } else {
            old = await ctx.promptSecret('Current password', '--password-stdin');
            next = await readNewPassword(ctx, opts);
          }
          const body = { old_password: old, new_password: next };
          await checkSecrets(ep, { body }, { old_password: 'old password', new_password: 'new password' });
          const api = await ctx.api();
          await printAnswer(ctx, await api.callFull(ep, { body } as never, { signal: ctx.signal }));
        })(opts);
      }),
  );
}

function buildVerify(cmd: Command, bind: Bind): void {
  addGlobalOptions(
    cmd
      .command('verify')
      .description('verify the signed-in account: --send --type T asks for a code; --code C --type T checks it')
      .addOption(new Option('--send', 'send a verification code (/cms/users/generate-verification)'))
      .addOption(new Option('--code <code>', 'the code received (4-10 characters; /cms/users/verify)'))
      .addOption(new Option('--type <type>', 'email|sms|phone, required'))
      .action((_o, c) => {
        const opts = c.optsWithGlobals() as Record<string, unknown>;
        bind(async (ctx) => {
          const send = opts.send === true;
          if (send === (opts.code !== undefined)) {
            throw new UsageError('auth verify needs either --send (ask for a code) or --code CODE (check it)', {
              hint: 'subctl auth verify --send --type email, then subctl auth verify --code 123456 --type email',
            });
          }
          const ep = send ? cmsVerificationGenerate : cmsVerificationVerify;
          const body: Record<string, unknown> = send ? { type: opts.type } : { code: opts.code, type: opts.type };
          const { validateInput } = await import('../../api/client.js');
          validateInput(ep, { body });
          const api = await ctx.api();
          await printAnswer(ctx, await api.callFull(ep, { body } as never, { signal: ctx.signal }));
        })(opts);
      }),
  );
}
