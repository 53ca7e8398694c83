export * from './configurations.service';
