/**
 * Compile-time part of `agent`: the `output-schema` (a name or inline) is checked and compiled,
 * and gives the output shape `{ body, tokenUsage }`; the `mock` answers are checked against it
 * (PIPE3020) and compiled; each MCP tool's `account: name` must name an account of a type its schema
 * lists and also brings that account's fields at run time.
 */
import type {
  BracesEnv,
  CompileApi,
  ConnectorCompiler,
  ConnectorSchema,
  JsonSchema,
  Diagnostic,
  JsExpr,
  ObjectValue,
  PipelineContext,
  SchemaViolation,
  Value,
} from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ step, schema, ctx, message }, result, api) {
    const t = api.types;
    const schemaValue = api.entryOf(step.params, 'output-schema');
    const output = schemaValue ? api.compileSchemaParam(schemaValue, ctx, 'agent-output') : undefined;
    const tokenUsage = t.objectOf({
      inputTokenCount: t.INTEGER,
      outputTokenCount: t.INTEGER,
      totalTokenCount: t.INTEGER,
    });
    const body = output?.schema !== undefined ? output.type : t.objectOf({ text: t.STRING });
    result.output = t.objectOf({ body, tokenUsage });
    const mock = api.entryOf(step.params, 'mock');
    if (mock) {
      result.replaced.add('mock');
      result.params['mock'] = compileMockAnswers(mock, output?.schema, ctx.bracesEnv(message), ctx, api);
    }
    // MCP tools: each `account: name` also gets the account's fields at run time.
    const tools = api.entryOf(step.params, 'tools');
    if (tools?.kind !== 'array') return;
    const env = ctx.bracesEnv(message);
    const toolAccount = toolAccountProperty(schema);
    const toolJs = tools.items.map((tool) => {
      const compiled = api.compileValue(tool, env, ctx);
      const obj: ObjectValue | undefined =
        tool.kind === 'tagged' ? tool.value : tool.kind === 'object' ? tool : undefined;
      const account = api.entryOf(obj, 'account');
      const name = account?.kind === 'ident' ? account.name : account?.kind === 'string' ? account.value : undefined;
      if (!name || !account || !compiled.js.endsWith('}')) return compiled.js;
      if (!api.checkAccount(ctx, name, account.span, toolAccount, '`account` of an MCP server of connector `agent`'))
        return compiled.js;
      return `${compiled.js.slice(0, -1).trimEnd()}, accountFields: ctx.accounts[${JSON.stringify(name)}] }`;
    });
    result.replaced.add('tools');
    result.params['tools'] = { js: `[${toolJs.join(', ')}]`, constant: false };
  },
};

/**
 * An agent's `mock` answers. Each entry `{ when?, answer }` stands in for the model when it runs
 * offline: `when` is a boolean over the step's input message, `answer` the reply — with
 * `output-schema` an object valid against it (each violation at its source span: PIPE3020),
 * without one the reply text (a string). The entries compile to `[{ when, answer }, …]`; the
 * runtime takes the first whose `when` holds.
 */
function compileMockAnswers(
  mock: Value,
  outputSchema: unknown,
  env: BracesEnv,
  ctx: PipelineContext,
  api: CompileApi,
): JsExpr {
  if (mock.kind !== 'array') return api.compileValue(mock, env, ctx); // a wrong type is PIPE3003 already
  const entries = mock.items.map((item) => {
    const entry = item.kind === 'object' ? item : undefined;
    const when = api.entryOf(entry, 'when');
    const answer = api.entryOf(entry, 'answer');
    if (!entry || !answer) return api.compileValue(item, env, ctx).js; // reported by the parameter schema
    const whenEnv: BracesEnv = {
      ...env,
      expected: { type: api.types.BOOLEAN, why: 'the `when` of an agent mock answer' },
    };
    const whenJs = when ? api.compileValue(when, whenEnv, ctx).js : 'true';
    ctx.diagnostics.push(...answerProblems(answer, outputSchema, ctx, api));
    return `{ when: ${whenJs}, answer: ${api.compileValue(answer, env, ctx).js} }`;
  });
  return { js: `[${entries.join(', ')}]`, constant: false };
}

function answerProblems(answer: Value, outputSchema: unknown, ctx: PipelineContext, api: CompileApi): Diagnostic[] {
  if (outputSchema === undefined) {
    if (answer.kind === 'string' || answer.kind === 'template' || answer.kind === 'braces') return [];
    return [
      api.diagnostic('PIPE3020', {
        message: 'an agent without `output-schema` answers text: the mock answer must be a string',
        span: answer.span,
        label: 'not text',
        hint: 'write the answer as a string, or give the agent an `output-schema` this object matches',
      }),
    ];
  }
  const literal = api.toLiteral(answer);
  const violations = api.schemaViolations(outputSchema, literal.json, ctx);
  if (!violations) return [];
  return (
    violations
      // Expressions are known only at run time, where the reply is validated like any model reply.
      .filter((v) => !api.isDynamicPointer(literal, v.instancePath))
      .map((v) => {
        const extra = v.keyword === 'additionalProperties' ? String(v.params['additionalProperty']) : undefined;
        const child = extra !== undefined ? `${v.instancePath}/${api.escapePointer(extra)}` : v.instancePath;
        const span =
          (extra !== undefined ? literal.spans.get(`#key:${child}`) : undefined) ??
          api.spanAt(literal, child, answer.span);
        return api.diagnostic('PIPE3020', {
          message: `the mock answer does not match the agent's output schema: ${describeViolation(v)}`,
          span,
          label: labelOf(v),
          hint: 'make the answer a reply the schema accepts (it stands in for the model offline)',
        });
      })
  );
}

function describeViolation(v: SchemaViolation): string {
  const at = v.instancePath === '' ? 'the answer' : `\`${v.instancePath.slice(1).split('/').join('.')}\``;
  switch (v.keyword) {
    case 'required':
      return `${at} has no \`${String(v.params['missingProperty'])}\`, which the schema requires`;
    case 'additionalProperties':
      return `${at} has \`${String(v.params['additionalProperty'])}\`, which the schema does not allow`;
    case 'enum':
      return `${at} must be one of ${(v.params['allowedValues'] as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
    default:
      return `${at} ${v.message ?? `fails \`${v.keyword}\``}`;
  }
}

function labelOf(v: SchemaViolation): string {
  switch (v.keyword) {
    case 'required':
      return `needs \`${String(v.params['missingProperty'])}\``;
    case 'additionalProperties':
      return 'not in the schema';
    default:
      return v.message ?? 'does not match';
  }
}

/** The schema of `tools[].account` (schema.json), whose `x-pipe-account-types` an MCP server's account must fit. */
function toolAccountProperty(schema: ConnectorSchema): JsonSchema | undefined {
  const properties = schema.params['properties'] as Record<string, JsonSchema> | undefined;
  const items = properties?.['tools']?.['items'] as JsonSchema | undefined;
  const itemProperties = items?.['properties'] as Record<string, JsonSchema> | undefined;
  return itemProperties?.['account'];
}
