export * from './workstreams.service';
