'use strict';
/** Fast tests of pure logic, beside the code: *.spec.ts (and *.spec.js of the stack scripts). No infrastructure. */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'unit',
  testMatch: ['<rootDir>/{apps,libs,e2e}/**/*.spec.ts', '<rootDir>/tools/**/*.spec.js'],
};
