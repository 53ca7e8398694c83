export * from './blob-store';
export * from './mounted-bucket';
