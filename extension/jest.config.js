// Unit tests of the viewer's logic and DOM (jsdom); the browser test lives in tests/extension/.
module.exports = {
  testEnvironment: 'jsdom',
  roots: ['<rootDir>/src'],
  testMatch: ['**/__tests__/**/*.spec.ts'],
  setupFiles: ['<rootDir>/src/__tests__/setup-jsdom.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }]
  }
};
