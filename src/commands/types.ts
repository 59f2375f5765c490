import type { Command } from 'commander';
import type { Ctx } from '../cli/context.js';
import type { Action } from '../cli/run.js';

/**
 * A command group (`subctl <group> <verb>`). `build` is called only when the group is used. Its
 * one-line summary is its registry entry's (src/commands/index.ts), the only place it is written.
 */
export interface Group {
  name: string;
  aliases?: string[];
  /**
   * `verb`: the verb named on the command line, when it is known for certain (run.ts
   * `groupAndVerb`); a group may then build only that verb in full and list the others by name.
   */
  build(cmd: Command, bind: (a: Action) => (raw: Record<string, unknown>) => void, verb?: string): void;
  /** What a bare `subctl` runs on a terminal (the console group only). */
  bare?: (ctx: Ctx) => Promise<number>;
}
