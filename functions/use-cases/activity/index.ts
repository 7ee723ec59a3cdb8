/** The Activity record: the recorder every write calls, and the request's source. */
export {
  type ActivityEvent,
  type ActivitySource,
  type ActorType,
  activityQuery,
  activityStatement,
  type DetailValue,
  SYSTEM_SOURCE,
  safeDetails,
  type Via,
} from './record';
export { activitySourceOf, CLIENT_HEADER } from './source';
