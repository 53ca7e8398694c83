export * from './workstreams.repository';
export * from './workstreams.service';
export * from './record-rules';
export * from './csv-rows';
export * from './record-store';
export * from './records.service';
export * from './uploads.service';
export * from './reports.service';
