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
  /** Before the gateway reads a PUT's body: may this upload still take a file? (its view, or 403/404/409) */
  PerformanceUploadCheckOpen = 'performance.upload.check-open',
  PerformanceUploadReceived = 'performance.upload.received',
  PerformanceUploadGet = 'performance.upload.get',
  QualityReport = 'performance.report.quality',
  ThroughputReport = 'performance.report.throughput',
  ConfigurationCreate = 'oversight.configuration.create',
  /** Oversight API (docs/oversight-api.md): upload grants, mounted buckets, tasks and their media. */
  ConfigurationGet = 'oversight.configuration.get',
  MediaGrantCreate = 'oversight.media-grant.create',
  BucketCreate = 'oversight.bucket.create',
  TaskCreate = 'oversight.task.create',
  TaskGet = 'oversight.task.get',
  TaskMediaLocate = 'oversight.task.media-locate',
  /** Admin API: every task, filtered by workstream and state, newest first. */
  TaskList = 'oversight.task.list',
  LineCreate = 'platform.line.create',
  /** Platform API (v4, and v3 presented over the same runs): the caller's account is always in the request. */
  LineList = 'platform.line.list',
  RunCreate = 'platform.run.create',
  RunGet = 'platform.run.get',
  RunAbort = 'platform.run.abort',
  RunList = 'platform.run.list',
  /** Work API: lease the next unit or task for a worker; complete or flag a leased one. */
  UnitAssignmentNext = 'platform.assignment.next',
  UnitAssignmentComplete = 'platform.assignment.complete',
  UnitAssignmentFlag = 'platform.assignment.flag',
  TaskAssignmentNext = 'oversight.assignment.next',
  TaskAssignmentComplete = 'oversight.assignment.complete',
  TaskAssignmentFlag = 'oversight.assignment.flag',
  /** Delivery API (webhook-dispatcher): the caller's deliveries, one with its attempts, a redelivery. */
  DeliveryList = 'delivery.delivery.list',
  DeliveryGet = 'delivery.delivery.get',
  DeliveryRedeliver = 'delivery.delivery.redeliver',
}
