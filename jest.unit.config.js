'use strict';
/** Fast tests of pure logic, beside the code: *.spec.ts (the stack scripts' too). No infrastructure. */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'unit',
  testMatch: ['<rootDir>/{apps,libs,e2e,tools}/**/*.spec.ts'],
};
