import type { DeliveryDetailView, DeliveryPage, DeliveryView } from '../rpc/delivery.messages';
import type { ConfigurationView, LineView, WorkstreamView } from '../rpc/messages';
import type { PerformanceReport, PerformanceUploadView, QualityReportGroup, ThroughputReportGroup } from '../rpc/performance.messages';
import type {
  BucketAnswer,
  ConfigurationAnswer,
  DeliveryAnswer,
  DeliveryDetailAnswer,
  DeliveryPageAnswer,
  LineAnswer,
  MediaGrantAnswer,
  PerformanceUploadAnswer,
  QualityReportAnswer,
  RunPageAnswer,
  TaskAnswer,
  TaskAssignmentAnswer,
  TaskCreatedAnswer,
  TaskPageAnswer,
  ThroughputReportAnswer,
  UnitAssignmentAnswer,
  WorkstreamAnswer,
} from './answers';
import type { BucketView, MediaGrantView, TaskAssignmentView, TaskCreatedView, TaskPage, TaskView } from './oversight.dto';
import type { RunPage } from './platform.dto';
import type { UnitAssignmentView } from './work.dto';

/**
 * Compile-time only: each view the services answer fits the answer class that documents it (docs/openapi.json),
 * so a field added to or retyped in a view without its answer class fails `tsc`, not a client.
 */
type Fits<View, Answer> = [View] extends [Answer] ? ([keyof View] extends [keyof Answer] ? true : never) : never;

export const VIEWS_FIT_THEIR_ANSWERS: [
  Fits<TaskView, TaskAnswer>,
  Fits<TaskPage, TaskPageAnswer>,
  Fits<RunPage, RunPageAnswer>,
  Fits<TaskCreatedView, TaskCreatedAnswer>,
  Fits<MediaGrantView, MediaGrantAnswer>,
  Fits<BucketView, BucketAnswer>,
  Fits<TaskAssignmentView, TaskAssignmentAnswer>,
  Fits<UnitAssignmentView, UnitAssignmentAnswer>,
  Fits<DeliveryView, DeliveryAnswer>,
  Fits<DeliveryDetailView, DeliveryDetailAnswer>,
  Fits<DeliveryPage, DeliveryPageAnswer>,
  Fits<WorkstreamView, WorkstreamAnswer>,
  Fits<ConfigurationView, ConfigurationAnswer>,
  Fits<LineView, LineAnswer>,
  Fits<PerformanceUploadView, PerformanceUploadAnswer>,
  Fits<PerformanceReport<QualityReportGroup> & { kind: 'quality' }, QualityReportAnswer>,
  Fits<PerformanceReport<ThroughputReportGroup> & { kind: 'throughput' }, ThroughputReportAnswer>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];
