'use strict';
/** Fast tests of pure logic, beside the code: *.spec.ts. No infrastructure. */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'unit',
  testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'],
};
