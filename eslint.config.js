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
        process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', clearImmediate: 'readonly',
        URL: 'readonly', URLSearchParams: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly',
        TextEncoder: 'readonly', TextDecoder: 'readonly', queueMicrotask: 'readonly', structuredClone: 'readonly',
        performance: 'readonly', fetch: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable',
        globalThis: 'readonly',
      },
    },
  },
);
