export * from './stack';
export * from './http';
export * from './eventually';
