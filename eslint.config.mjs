// `npm run lint`: ESLint over server, admin, test and scripts (then `prettier --check` over the
// same folders). typescript-eslint's recommended rules without type information: the type-aware
// set would make every run compile both TypeScript projects again, which `npm run typecheck`
// already does. Formatting is Prettier's alone (eslint-config-prettier, last).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'example/**', 'test/artifacts/**', 'test/fixtures/**'],
  },
  {
    files: ['server/**/*.{ts,js}', 'admin/**/*.{ts,tsx}', 'test/**/*.{ts,js}', 'scripts/**/*.js'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore marks a parameter a signature needs; a rest sibling is left out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // The scripts and the test helpers in JavaScript are CommonJS run by Node.
    files: ['scripts/**/*.js', 'test/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: {
      // CommonJS files load their modules with require(); there is no import to prefer.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON replies and Strapi's untyped documents; each assertion states the shape it needs.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Each admin route's request and answer sit in a `declare namespace` named after the route
    // (GetSettings.Response), as Strapi's own plugins declare theirs: types only, nothing emitted.
    files: ['server/src/contract/admin/**/*.ts'],
    rules: { '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }] },
  },
  {
    files: ['admin/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
  },
  prettier
);
