export * from './service-bootstrap';
export * from './ops-server';
export * from './graceful-shutdown';
export { HealthRpcController } from './health.rpc-controller';
