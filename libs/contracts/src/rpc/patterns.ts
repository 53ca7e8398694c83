/**
 * Request-reply message patterns, carried inside the requests on each service's RPC topic.
 * `<service>.<entity>.<verb>`; like topics, never rename one in place.
 */
export enum RpcPattern {
  /** Every service: is it up, and does it reach its database? */
  Health = 'health.check',
  WorkstreamCreate = 'performance.workstream.create',
  WorkstreamGet = 'performance.workstream.get',
  /** Workstream performance API (docs/performance-api.md): records, CSV uploads, reports. */
  QualityRecordSubmit = 'performance.quality-record.submit',
  ThroughputRecordSubmit = 'performance.throughput-record.submit',
  PerformanceUploadCreate = 'performance.upload.create',
  PerformanceUploadReceived = 'performance.upload.received',
  PerformanceUploadGet = 'performance.upload.get',
  QualityReport = 'performance.report.quality',
  ThroughputReport = 'performance.report.throughput',
  ConfigurationCreate = 'oversight.configuration.create',
  LineCreate = 'platform.line.create',
  /** Work API: lease the next unit or task for a worker; complete or flag a leased one. */
  UnitAssignmentNext = 'platform.assignment.next',
  UnitAssignmentComplete = 'platform.assignment.complete',
  UnitAssignmentFlag = 'platform.assignment.flag',
  TaskAssignmentNext = 'oversight.assignment.next',
  TaskAssignmentComplete = 'oversight.assignment.complete',
  TaskAssignmentFlag = 'oversight.assignment.flag',
}
