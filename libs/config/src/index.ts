export * from './env';
