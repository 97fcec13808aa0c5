/**
 * The service runtime's public surface, for generated `server.ts` files and tools (`pipec run`,
 * `pipec test`). Everything else in this folder is internal.
 */
export { createService, DEFAULT_GRACE_MS } from './create-service.js';
export type { ExecutionOutcome, Service, ServiceDefinition, ServiceOptions } from './create-service.js';
export { serve, startService } from './node-server.js';
export type { RunningServer, ServeOptions } from './node-server.js';
export type { Backends, LockBackend } from './backends-port.js';
export { createLogger } from './logging.js';
