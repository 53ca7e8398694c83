'use strict';
module.exports = async function globalTeardown() {
  await globalThis.__WORKLINE_STACK__?.stop();
  await globalThis.__WORKLINE_TEST_DNS__?.stop();
};
