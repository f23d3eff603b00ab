/** Unit tests cover the pure contract; integration tests boot the example site. */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
// Strapi keeps a global `strapi`; its late reads after a file's teardown are harmless. Both
// projects share worker processes, so both must ask for the same mode.
const testEnvironmentOptions = { globalsCleanup: 'off' };

module.exports = {
  // Booting Strapi takes seconds on a busy 2-core machine; no test asserts wall time (a few compare
  // two costs measured in the same run).
  testTimeout: 120000,
  // The longest files first, by test/durations.json where jest has no durations of its own.
  testSequencer: '<rootDir>/test/helpers/sequencer.js',
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform: { '^.+\\.tsx?$': tsJest },
      testEnvironmentOptions,
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      // Every test site's database starts as a copy of one made here (first boots cost seconds).
      globalSetup: '<rootDir>/test/helpers/template-database.ts',
      globalTeardown: '<rootDir>/test/helpers/template-database-teardown.ts',
      transform: { '^.+\\.tsx?$': tsJest },
      testEnvironmentOptions,
    },
  ],
};
