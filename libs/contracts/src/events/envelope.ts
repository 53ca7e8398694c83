/**
 * What every domain event looks like on Kafka. `id` is unique per event and is what consumers dedupe on
 * (inbox); `type` equals the topic it was written to.
 */
export interface EventEnvelope<T> {
  id: string;
  type: string;
  occurred_at: string;
  data: T;
}
