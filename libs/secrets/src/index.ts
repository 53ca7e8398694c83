export * from './secrets';
export * from './signed-url';
