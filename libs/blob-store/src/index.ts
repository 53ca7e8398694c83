export * from './blob-store';
export * from './mounted-bucket';
export * from './s3-blob-store';
export * from './blob-store.env';
export * from './s3-mounted-bucket';
export * from './periodic-sweep';
export * from './blob-replies';
export * from './interrupted-writes-sweep';
