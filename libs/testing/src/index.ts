export * from './stack';
export * from './http';
export * from './eventually';
export * from './instances';
export * from './receiver';
export * from './deliveries';
export * from './platform';
export * from './browser';
