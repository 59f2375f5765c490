/**
 * Examples of the commands written by hand (not declared by a VerbSpec, whose examples are in
 * its spec), keyed by the command's words below `subctl`. src/cli/help.ts shows them in help,
 * src/docs/ puts them in the reference, and tests/cli/help.test.ts runs each through the parser.
 */
export const HAND_WRITTEN_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
};
