export * from './service-bootstrap';
export { HealthRpcController } from './health.rpc-controller';
