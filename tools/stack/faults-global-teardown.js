'use strict';
/** Stops the fault suite's private Kafka, Redis and PostgreSQL (the tests stop the apps they started). */
module.exports = async function globalTeardown() {
  await require('./faults-infra').stopAll();
};
