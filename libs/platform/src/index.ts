export * from './lines.service';
