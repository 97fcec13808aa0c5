/**
 * The public surface of the pipec runtime: what generated services import (as `R`).
 * Stable within a major version; everything else under runtime/ is internal.
 *
 * @example
 *   import { startService } from './runtime/index.js';
 *   import { service } from './service.js';
 *   await startService(service);
 */
export type {
  Json,
  JsonObject,
  PipelineModule,
  PipelineOptions,
  TriggerSpec,
  SpanKindName,
  CompiledValidator,
  ExecutionContext,
  ExecutionMetadata,
  ServiceServices,
  Clock,
  ConnectorRun,
  ObjectStoreBackend,
  EventBroker,
} from './types.js';
export { Reply } from './types.js';
export { PipeError, asPipeError, toErrorObject, toFailureOutput } from './errors.js';
export {
  step,
  stepNow,
  reply,
  fail,
  caught,
  isFailure,
  asArray,
  forEach,
  env,
  withCapsule,
  capsuleParams,
  checkContract,
  branch,
} from './steps.js';
export type { StepInfo, ForEachInfo, StepHooks, ChoiceInfo } from './steps.js';
export { compileJsonPath, jsonPathMatches, jsonPathQuery } from './jsonpath.js';
export { createService } from './service/create-service.js';
export type { ServiceDefinition, ServiceOptions, Service, ExecutionOutcome } from './service/create-service.js';
export type { TriggerRuntime, TriggerHost, TriggerAttachment, TriggeredPipeline } from './service/trigger-host.js';
export { startService, serve } from './service/node-server.js';
