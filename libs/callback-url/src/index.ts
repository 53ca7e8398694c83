export * from './callback-url';
