/**
 * How the rest of subctl loads the interactive screens: `const ui = await loadUi()`.
 *
 * Ink decides once, as it is first imported, whether it runs in CI (is-in-ci: `CI` or any
 * `CI_*` variable set), and then draws nothing until it exits. The screens are only opened on
 * a terminal someone is typing in, so Ink is imported with those variables hidden for that
 * moment (and put back at once). This module itself imports nothing heavy.
 */
export async function loadUi(): Promise<typeof import('./index.js')> {
  const saved: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) {
    if (k === 'CI' || k === 'CONTINUOUS_INTEGRATION' || k.startsWith('CI_')) {
      saved[k] = process.env[k];
      delete process.env[k];
    }
  }
  try {
    return await import('./index.js');
  } finally {
    Object.assign(process.env, saved);
  }
}
