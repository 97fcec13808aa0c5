/**
 * Message shapes that the language itself defines: for-each and error objects, and the shape a
 * connector's output rule gives. (A trigger's first message is defined by its folder's compile.ts.)
 */
import type { ConnectorSchema } from '../connectors/connector-registry.js';
import { schemaToType } from '../types/schema-to-type.js';
import { BOOLEAN, INTEGER, NUMBER, STRING, UNKNOWN, type FieldType, type PipeType } from '../types/pipe-type.js';

const OPEN_OBJECT: PipeType = { kind: 'object', fields: {}, open: true };

function closed(fields: Record<string, PipeType>, optional: readonly string[] = []): PipeType {
  const out: Record<string, FieldType> = {};
  for (const [k, t] of Object.entries(fields)) out[k] = { type: t, required: !optional.includes(k) };
  return { kind: 'object', fields: out, open: false };
}

/**
 * Fields the platform itself adds to an error (runtime/errors.ts `toErrorObject` adds `step`; the
 * rest are the `details` of the run time's own PipeErrors: rest's `status`, an execute's child
 * execution, a parser's `line`, a validation's `validation` / `violations`…). Declared (optional,
 * of unknown type: each depends on the step that failed) so that reading them is never taken for
 * a near miss of another declared name.
 */
const ERROR_DETAILS: Readonly<Record<string, PipeType>> = {
  step: UNKNOWN,
  status: UNKNOWN,
  retryAfter: UNKNOWN,
  validation: UNKNOWN,
  violations: UNKNOWN,
  line: UNKNOWN,
  column: UNKNOWN,
  reason: UNKNOWN,
  size: UNKNOWN,
  maxSize: UNKNOWN,
  maxDepth: UNKNOWN,
  maxRecords: UNKNOWN,
  maxRows: UNKNOWN,
  rejected: UNKNOWN,
  limit: UNKNOWN,
  target: UNKNOWN,
  backend: UNKNOWN,
  modelStatus: UNKNOWN,
  tokenUsage: UNKNOWN,
  pipelineName: UNKNOWN,
  childExecutionId: UNKNOWN,
  sqlState: UNKNOWN,
  constraint: UNKNOWN,
  internalErrorMessage: UNKNOWN,
};

function withDetails(fields: Record<string, FieldType>): Record<string, FieldType> {
  const out = { ...fields };
  for (const [key, type] of Object.entries(ERROR_DETAILS))
    if (!Object.hasOwn(out, key)) out[key] = { type, required: false };
  return out;
}

/**
 * The standard error object seen by `catch` and `on-error`. Open: a connector's error details join
 * it (rest's `status` and the response's `body`, a parser's `line`…); `body` is named so that
 * `message.body.message` (the API's own error text) reads as what it is.
 */
export const ERROR_OBJECT: PipeType = {
  kind: 'object',
  open: true,
  fields: withDetails({
    body: { type: UNKNOWN, required: false },
    error: { type: STRING, required: true },
    message: { type: STRING, required: true },
    code: { type: INTEGER, required: true },
    kind: { type: STRING, required: true },
    timestamp: { type: INTEGER, required: true },
    executionId: { type: STRING, required: true },
  }),
};

/**
 * The error object of steps that may fail with fields named in the pipeline (a `fail` step's
 * object, an executed pipeline's): a read one slip away from a declared name may be one of those.
 */
export const ERROR_OBJECT_NAMED_ELSEWHERE: PipeType = { ...ERROR_OBJECT, freeNames: true };

export const FOR_EACH_OUTPUT: PipeType = closed({ total: INTEGER, success: INTEGER, failed: INTEGER });

/** The fields of every failure output (runtime/errors.ts `toFailureOutput`). */
export const FAILURE_FIELDS: Readonly<Record<string, FieldType>> = {
  success: { type: BOOLEAN, required: true },
  message: { type: STRING, required: true },
  error: { type: STRING, required: true },
  code: { type: NUMBER, required: true },
  kind: { type: STRING, required: true },
};

/**
 * The message of an `on-fail` block: a failure output, with the error's details (validate's own
 * `{ success: false, validation }` too).
 */
export const FAILURE_OUTPUT: PipeType = { kind: 'object', open: true, fields: withDetails({ ...FAILURE_FIELDS }) };

/** Output shape of a connector step from its schema's output rule. */
export function outputShape(
  schema: ConnectorSchema,
  input: PipeType,
  paramTypes: Readonly<Record<string, PipeType>>,
): PipeType {
  const rule = schema.output;
  if (rule === undefined || rule === null) return UNKNOWN;
  if (rule === 'input') return input;
  if (typeof rule === 'string') {
    const field = rule.slice('params.'.length);
    return paramTypes[field] ?? UNKNOWN;
  }
  return schemaToType(operationBranch(rule, paramTypes) ?? rule);
}

/**
 * An output rule `{ anyOf: [...] }` whose branches name the operations they answer
 * (`"x-pipe-operation": ["verify"]`): the branch of the step's `operation` when it is written as a
 * word, so `{{ step.check.valid }}` is typed by the verify branch alone. Undefined otherwise.
 */
function operationBranch(rule: object, paramTypes: Readonly<Record<string, PipeType>>): object | undefined {
  const branches = (rule as { anyOf?: unknown }).anyOf;
  if (!Array.isArray(branches)) return undefined;
  const written = paramTypes['operation'];
  const operation = written?.kind === 'string' && written.enum?.length === 1 ? written.enum[0] : undefined;
  if (operation === undefined) return undefined;
  return branches.find(
    (b): b is object =>
      typeof b === 'object' &&
      b !== null &&
      Array.isArray((b as Record<string, unknown>)['x-pipe-operation']) &&
      ((b as Record<string, unknown>)['x-pipe-operation'] as unknown[]).includes(operation),
  );
}

export { schemaToType, OPEN_OBJECT };
