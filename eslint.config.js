// ESLint: typescript-eslint's recommended rules over the sources, tests, scripts and benchmarks.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'bench/.build/', 'bench/.data/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        clearImmediate: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
        globalThis: 'readonly',
      },
    },
    // Leaving a property out with a rest pattern (`const { token: _t, ...visible } = data`) is not an unused variable.
    rules: { '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }] },
  },
  {
    // These files match terminal escapes and control characters on purpose, to strip or escape them.
    files: [
      'src/output/terminal-safe.ts',
      'src/output/width.ts',
      'src/ui/drawable.ts',
      'src/api/redact.ts',
      'src/catalog/plan-text.ts',
      'scripts/code-cache.mjs',
      'tests/catalog/console-view.test.tsx',
      'tests/commands/audit-follow.test.ts',
      'tests/commands/services.test.ts',
      'tests/fuzz/contract.fuzz.test.ts',
      'tests/security/hygiene.test.ts',
    ],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Its zero-width class lists the variation selectors U+FE00-U+FE0F as a range on purpose.
    files: ['src/output/width.ts'],
    rules: { 'no-misleading-character-class': 'off' },
  },
  {
    // CommonJS files (bin/package.json makes bin/ CommonJS): require is their module system.
    files: ['bin/**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read JSON answers whose shape each assertion checks.
    files: ['tests/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
