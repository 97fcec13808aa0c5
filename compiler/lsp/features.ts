/**
 * The language features, as pure functions over a project view (the .pipe files of one folder, each
 * with its text and AST, plus the connector registry): hover, completion and go-to-definition.
 * In: a file path and an offset. Out: plain data with host-file spans; server.ts turns it into LSP.
 */
import type { ConnectorStep, Decl, ObjectValue, PipeFile, PipelineDecl, Step, Value } from '../ast/ast.js';
import { findSignature, SIGNATURES, type FunctionSignature } from '../braces/signatures.js';
import {
  paramProperties,
  type ConnectorRegistry,
  type ConnectorSchema,
  type JsonSchema,
} from '../connectors/connector-registry.js';
import type { Span } from '../../base/source/span.js';
import { describeType } from '../types/type-ops.js';
import type { PipeType } from '../types/pipe-type.js';
import type { StepShape } from '../check/context.js';
import { locate, type Owner } from './locate.js';
import { connectorStepsOf } from '../ast/walk.js';
import {
  headerParam,
  refOf,
  stepParam,
  stepReferences,
  triggerReferences,
  type RefKind,
} from '../connectors/schema-facts.js';

export interface ProjectFile {
  readonly path: string;
  readonly text: string;
  readonly ast: PipeFile;
}

export interface ProjectView {
  readonly files: readonly ProjectFile[];
  readonly registry: ConnectorRegistry;
  /** The message shape each step receives, from the last compile of the unit (may be absent or stale). */
  readonly shapes?: readonly StepShape[];
}

export interface HoverResult {
  readonly markdown: string;
  readonly span: Span;
}

export type CompletionKind = 'connector' | 'keyword' | 'param' | 'function' | 'trigger' | 'variable' | 'field';

export interface CompletionEntry {
  readonly label: string;
  readonly kind: CompletionKind;
  readonly detail?: string;
  readonly documentation?: string;
  /** Text inserted (defaults to the label). */
  readonly insertText?: string;
}

export interface CompletionResult {
  /** Offset where the word being completed starts (the replaced range ends at the cursor). */
  readonly replaceFrom: number;
  readonly items: readonly CompletionEntry[];
}

const STEP_KEYWORDS = ['respond', 'fail', 'choice', 'try', 'for-each'];
const PIPELINE_KEYWORDS = ['trigger', 'on-error', 'branch'];
const DECL_KEYWORDS = ['pipeline', 'schema', 'import', 'account', 'global', 'store', 'capsule'];

// ───────────────────────────── hover ─────────────────────────────

export function hover(project: ProjectView, path: string, offset: number): HoverResult | undefined {
  const file = project.files.find((f) => f.path === path);
  if (!file) return undefined;
  const hit = locate(file.ast, offset);
  if (!hit) return undefined;
  switch (hit.kind) {
    case 'connector-name': {
      const schema = project.registry.connectors.get(hit.step.connector);
      return schema
        ? { markdown: `${schemaDoc(schema)}${shapeSection(shapeOf(project, hit.step.span))}`, span: hit.span }
        : undefined;
    }
    case 'trigger-kind': {
      const schema = project.registry.triggers.get(hit.trigger.kind);
      return schema ? { markdown: schemaDoc(schema), span: hit.span } : undefined;
    }
    case 'param-key': {
      const schema = ownerSchema(project.registry, hit.owner);
      const property = schema ? paramProperties(schema)[hit.key] : undefined;
      return property && schema
        ? { markdown: paramDoc(schema.name, hit.key, property, isRequired(schema, hit.key)), span: hit.span }
        : undefined;
    }
    case 'braces': {
      const word = wordAt(file.text, offset);
      if (!word) return undefined;
      const signature = word.isCall ? findSignature(word.text) : undefined;
      if (signature) return { markdown: signatureDoc(signature), span: word.span(path) };
      const global = /^global\.([A-Za-z0-9_$-]+)/.exec(word.text);
      const decl = global?.[1] ? findDecls(project, global[1]).find((d) => d.decl.kind === 'global') : undefined;
      if (decl) return { markdown: codeBlock(sliceOf(project, decl.path, decl.decl.span)), span: word.span(path) };
      return undefined;
    }
    case 'value': {
      if (hit.value.kind !== 'ident') return undefined;
      const decl = findDecls(project, hit.value.name)[0];
      return decl
        ? { markdown: codeBlock(firstLines(sliceOf(project, decl.path, decl.decl.span), 12)), span: hit.span }
        : undefined;
    }
    case 'step':
      return {
        markdown: stepDoc(project.registry, hit.step, shapeOf(project, hit.step.span)),
        span: { ...hit.span, end: Math.min(hit.span.end, hit.span.start + hit.step.kind.length) },
      };
    default:
      return undefined;
  }
}

function schemaDoc(schema: ConnectorSchema): string {
  const rows = Object.entries(paramProperties(schema)).map(
    ([name, property]) =>
      `| \`${name}\`${isRequired(schema, name) ? ' *' : ''} | ${escapeCell(typeOfSchema(property))} | ${escapeCell(String(property['description'] ?? ''))} |`,
  );
  const positional =
    schema.positional && schema.positional.length > 0
      ? `\n\nHeader words fill: ${schema.positional.map((p) => `\`${p}\``).join(', ')}`
      : '';
  const table =
    rows.length > 0 ? `\n\n| parameter | type | description |\n|---|---|---|\n${rows.join('\n')}\n\n\\* required` : '';
  return `**${schema.kind} \`${schema.name}\`** — ${schema.summary}${positional}${table}`;
}

function paramDoc(owner: string, key: string, property: JsonSchema, required: boolean): string {
  const facts = [`type: \`${typeOfSchema(property)}\``];
  if (required) facts.push('required');
  if (property['default'] !== undefined) facts.push(`default: \`${JSON.stringify(property['default'])}\``);
  if (typeof property['x-pipe-unit'] === 'string') facts.push(`unit: ${property['x-pipe-unit']}`);
  if (property['x-pipe-braces'] === true) facts.push('accepts `{{ }}`');
  if (typeof property['x-pipe-refuses-braces'] === 'string')
    facts.push('query text: no `{{ }}`, values as bound parameters');
  const accountTypes = property['x-pipe-account-types'];
  if (Array.isArray(accountTypes))
    facts.push(`account types: ${accountTypes.map((t) => `\`${String(t)}\``).join(', ')}`);
  const description = typeof property['description'] === 'string' ? `\n\n${property['description']}` : '';
  return `**\`${key}\`** (parameter of \`${owner}\`) — ${facts.join(', ')}${description}`;
}

function signatureDoc(signature: FunctionSignature): string {
  return `${codeBlock(signatureText(signature))}\n${signature.summary}\n\nExample: \`${signature.example}\``;
}

export function signatureText(signature: FunctionSignature): string {
  const params = signature.params
    .map((p) =>
      (p as { lambda?: unknown }).lambda
        ? p.name
        : `${p.rest ? '...' : ''}${p.name}${p.optional ? '?' : ''}: ${describeType(p.type)}`,
    )
    .join(', ');
  const result = typeof signature.result === 'function' ? 'depends on the arguments' : describeType(signature.result);
  return `${signature.name}(${params}) → ${result}`;
}

/** The shape a step receives, when the last compile recorded one for exactly this step. */
function shapeOf(project: ProjectView, span: Span): PipeType | undefined {
  return project.shapes?.find(
    (s) => s.span.file === span.file && s.span.start === span.start && s.span.end === span.end,
  )?.message;
}

/** The shape at an offset: the innermost step around it. */
function shapeAt(project: ProjectView, file: string, offset: number): PipeType | undefined {
  let best: StepShape | undefined;
  for (const shape of project.shapes ?? []) {
    if (shape.span.file !== file || shape.span.start > offset || shape.span.end < offset) continue;
    if (!best || shape.span.end - shape.span.start < best.span.end - best.span.start) best = shape;
  }
  return best?.message;
}

function shapeSection(shape: PipeType | undefined): string {
  if (!shape) return '\n\n_The message shape at this step is known after the file compiles._';
  // A message narrowed by its senders (compiler/check/senders.ts) says so.
  const sentBy = shape.kind === 'object' ? shape.sentBy : undefined;
  const note = sentBy ? `\n\n_What every ${sentBy.who} sends, with the fields its schema declares._` : '';
  return `\n\n**message** at this step:\n${codeBlock(renderShape(shape, 0))}${note}`;
}

/**
 * A TypeScript-like rendering of a shape, a few levels deep (`?` marks optional fields, `…` open
 * objects, a comment the account a secret value comes from).
 */
export function renderShape(type: PipeType, depth: number): string {
  const pad = '  '.repeat(depth + 1);
  switch (type.kind) {
    case 'object': {
      const entries = Object.entries(type.fields);
      if (entries.length === 0) return type.open ? '{ … }' : '{}';
      if (depth >= 3) return '{ … }';
      const lines = entries.map(
        ([name, field]) =>
          `${pad}${/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)}${field.required ? '' : '?'}: ${renderShape(field.type, depth + 1)}`,
      );
      if (type.open) lines.push(`${pad}…`);
      return `{\n${lines.join('\n')}\n${'  '.repeat(depth)}}`;
    }
    case 'array':
      return `${renderShape(type.items, depth)}[]`;
    case 'union':
      return type.members.map((m) => renderShape(m, depth)).join(' | ');
    default:
      // A secret says where it comes from: what may not be sent out (PIPE4201).
      return type.secret ? `${describeType(type)} /* secret: ${type.secret.from} */` : describeType(type);
  }
}

function stepDoc(registry: ConnectorRegistry, step: Step, shape?: PipeType): string {
  if (step.kind === 'connector') {
    const schema = registry.connectors.get(step.connector);
    return `${schema ? schemaDoc(schema) : `connector \`${step.connector}\``}${shapeSection(shape)}`;
  }
  const texts: Record<Exclude<Step['kind'], 'connector'>, string> = {
    respond: '**respond** — ends the execution and answers the caller with a status, body and headers.',
    fail: '**fail** — stops the execution with the standard error object (status and message).',
    choice: '**choice** — runs the first `when` branch whose condition holds, else `otherwise`.',
    try: '**try / catch** — runs the body; if a step fails, runs `catch` with the error object as the message.',
    'for-each': '**for-each** — runs the body once per element (each element is the message in the body).',
  };
  return `${texts[step.kind]}${shapeSection(shape)}`;
}

function typeOfSchema(property: JsonSchema): string {
  if (Array.isArray(property['enum']))
    return (property['enum'] as unknown[]).map((v) => JSON.stringify(v)).join(' \\| ');
  if (typeof property['x-pipe-ref'] === 'string') return `${property['x-pipe-ref']} name`;
  const type = property['type'];
  if (Array.isArray(type)) return type.join(' \\| ');
  if (typeof type === 'string') return type;
  if (Array.isArray(property['oneOf']) || Array.isArray(property['anyOf'])) return 'one of several forms';
  return 'any';
}

function isRequired(schema: ConnectorSchema, key: string): boolean {
  const required = schema.params['required'];
  return Array.isArray(required) && required.includes(key);
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function codeBlock(text: string): string {
  return `\`\`\`pipe\n${text}\n\`\`\``;
}

function firstLines(text: string, count: number): string {
  const lines = text.split('\n');
  return lines.length <= count ? text : `${lines.slice(0, count).join('\n')}\n…`;
}

function ownerSchema(registry: ConnectorRegistry, owner: Owner): ConnectorSchema | undefined {
  return owner.kind === 'connector'
    ? registry.connectors.get(owner.step.connector)
    : registry.triggers.get(owner.trigger.kind);
}

/** The dotted name under the cursor inside `{{ }}` (`global.limits.max`, `SIZE`), and whether it is called. */
function wordAt(
  text: string,
  offset: number,
): { text: string; isCall: boolean; span: (file: string) => Span } | undefined {
  const isWordChar = (c: string): boolean => /[A-Za-z0-9_$.]/.test(c);
  let start = offset;
  while (start > 0 && isWordChar(text.charAt(start - 1))) start--;
  let end = offset;
  while (end < text.length && isWordChar(text.charAt(end))) end++;
  if (start === end) return undefined;
  const after = text.slice(end).match(/^\s*\(/);
  return { text: text.slice(start, end), isCall: after !== null, span: (file) => ({ file, start, end }) };
}

function sliceOf(project: ProjectView, path: string, span: Span): string {
  return project.files.find((f) => f.path === path)?.text.slice(span.start, span.end) ?? '';
}

// ───────────────────────────── definition ─────────────────────────────

export interface DefinitionTarget {
  readonly span: Span;
}

export function definition(project: ProjectView, path: string, offset: number): DefinitionTarget[] {
  const file = project.files.find((f) => f.path === path);
  if (!file) return [];
  const hit = locate(file.ast, offset);
  if (!hit) return [];
  const named = (name: string, kinds: readonly Decl['kind'][]): DefinitionTarget[] =>
    findDecls(project, name)
      .filter((d) => kinds.includes(d.decl.kind))
      .map((d) => ({ span: d.nameSpan }));
  // Where a name leads is the schemas' data: the parameter's `x-pipe-ref` (a header word's
  // parameter, or its first part when the word splits: `store orders.find` → the store).
  const referenced = (ref: RefKind | undefined, name: string, publishing: boolean): DefinitionTarget[] | undefined => {
    switch (ref) {
      case 'pipeline':
        return named(name, ['pipeline']);
      case 'store':
        return named(name, ['store']);
      case 'account':
        return named(name, ['account']);
      case 'schema':
        return named(name, ['schema', 'import']);
      case 'event':
        return publishing ? eventTriggers(project, name) : publishers(project, name);
      default:
        return undefined;
    }
  };
  switch (hit.kind) {
    case 'header-arg': {
      const schema = project.registry.connectors.get(hit.step.connector);
      const param = schema ? headerParam(schema, hit.index) : undefined;
      const name = schema && param ? stepParam(hit.step, schema, param)?.name : undefined;
      return (param && name && schema && referenced(refOf(paramProperties(schema)[param]), name, true)) || [];
    }
    case 'value': {
      const value = hit.value;
      const text = value.kind === 'string' ? value.value : value.kind === 'ident' ? value.name : undefined;
      if (text === undefined) return [];
      const schema = hit.owner ? ownerSchema(project.registry, hit.owner) : undefined;
      const ref = schema && hit.param !== undefined ? refOf(paramProperties(schema)[hit.param]) : undefined;
      const found = referenced(
        ref,
        ref === 'event' ? text : (text.split('.')[0] ?? text),
        hit.owner?.kind === 'connector',
      );
      if (found) return found;
      if (value.kind === 'ident')
        return named(text.split('.')[0] ?? text, [
          'account',
          'schema',
          'import',
          'store',
          'pipeline',
          'global',
          'capsule',
        ]);
      return [];
    }
    case 'braces': {
      const word = wordAt(file.text, offset);
      const global = word && /^global\.([A-Za-z0-9_$-]+)/.exec(word.text);
      return global?.[1] ? named(global[1], ['global']) : [];
    }
    case 'branch-ref': {
      const pipeline = file.ast.decls.find(
        (d): d is PipelineDecl => d.kind === 'pipeline' && d.span.start <= offset && offset <= d.span.end,
      );
      const branch = pipeline?.branches.find((b) => b.name === hit.name);
      return branch ? [{ span: branch.nameSpan }] : [];
    }
    case 'decl-name':
      // On an event-triggered pipeline's name nothing more useful exists; on a declaration, itself.
      return [{ span: hit.span }];
    default:
      return [];
  }
}

/** Declarations named `name` across the project (schema imports match their alias). */
function findDecls(project: ProjectView, name: string): { path: string; decl: Decl; nameSpan: Span }[] {
  const found: { path: string; decl: Decl; nameSpan: Span }[] = [];
  for (const file of project.files) {
    for (const decl of file.ast.decls) {
      if (decl.kind === 'import') {
        if (decl.alias === name && decl.aliasSpan) found.push({ path: file.path, decl, nameSpan: decl.aliasSpan });
      } else if (decl.name === name) found.push({ path: file.path, decl, nameSpan: decl.nameSpan });
    }
  }
  return found;
}

/** The triggers subscribing to `event` (a trigger parameter marked `x-pipe-ref: event`). */
function eventTriggers(project: ProjectView, event: string): DefinitionTarget[] {
  const targets: DefinitionTarget[] = [];
  for (const file of project.files) {
    for (const decl of file.ast.decls) {
      const schema =
        decl.kind === 'pipeline' && decl.trigger ? project.registry.triggers.get(decl.trigger.kind) : undefined;
      if (decl.kind !== 'pipeline' || !decl.trigger || !schema) continue;
      for (const ref of triggerReferences(decl.trigger, schema, 'event'))
        if (ref.name === event) targets.push({ span: ref.span });
    }
  }
  return targets;
}

/** The steps publishing `event` (a connector parameter marked `x-pipe-ref: event`). */
function publishers(project: ProjectView, event: string): DefinitionTarget[] {
  const targets: DefinitionTarget[] = [];
  for (const file of project.files) {
    for (const step of connectorSteps(file.ast)) {
      const schema = project.registry.connectors.get(step.connector);
      for (const ref of schema ? stepReferences(step, schema, 'event') : [])
        if (ref.name === event) targets.push({ span: ref.span });
    }
  }
  return targets;
}

/** Every connector step of a file, at any depth. */
export function connectorSteps(file: PipeFile): ConnectorStep[] {
  return connectorStepsOf(file);
}

// ───────────────────────────── completion ─────────────────────────────

/** The fields of the object at a path inside a shape (unknown or open shapes offer what they know). */
function fieldsAt(shape: PipeType | undefined, path: readonly string[]): Array<[string, PipeType]> {
  let current = shape;
  for (const segment of path) {
    if (!current || current.kind !== 'object') return [];
    current = Object.hasOwn(current.fields, segment) ? current.fields[segment]?.type : undefined;
  }
  if (!current || current.kind !== 'object') return [];
  return Object.entries(current.fields).map(([name, field]) => [name, field.type]);
}

export function complete(project: ProjectView, path: string, offset: number): CompletionResult {
  const file = project.files.find((f) => f.path === path);
  if (!file) return { replaceFrom: offset, items: [] };
  const before = file.text.slice(0, offset);
  const word = /[A-Za-z0-9_$-]*$/.exec(before)?.[0] ?? '';
  const replaceFrom = offset - word.length;

  if (insideBraces(before)) {
    const globalPrefix = /\bglobal\.([A-Za-z0-9_$-]*)$/.exec(before);
    if (globalPrefix) {
      const globals = project.files.flatMap((f) => f.ast.decls.filter((d) => d.kind === 'global'));
      return {
        replaceFrom: offset - (globalPrefix[1]?.length ?? 0),
        items: globals.map((g) => ({
          label: (g as { name: string }).name,
          kind: 'variable' as const,
          detail: 'global',
        })),
      };
    }
    const messagePath = /\bmessage((?:\.[A-Za-z0-9_$-]+)*)\.([A-Za-z0-9_$-]*)$/.exec(before);
    if (messagePath) {
      const fields = fieldsAt(shapeAt(project, path, offset), (messagePath[1] ?? '').split('.').filter(Boolean));
      return {
        replaceFrom: offset - (messagePath[2]?.length ?? 0),
        items: fields.map(([name, type]) => ({ label: name, kind: 'field' as const, detail: describeType(type) })),
      };
    }
    if (/\.[A-Za-z0-9_$]*$/.test(before)) return { replaceFrom, items: [] };
    return {
      replaceFrom,
      items: [
        ...SIGNATURES.map(functionItem),
        ...['message', 'global', 'step'].map((v) => ({ label: v, kind: 'variable' as const })),
      ],
    };
  }
  if (/\btrigger\s+[A-Za-z0-9_-]*$/.test(before)) {
    return {
      replaceFrom,
      items: [...project.registry.triggers.values()].map((s) => ({
        label: s.name,
        kind: 'trigger' as const,
        detail: 'trigger',
        documentation: s.summary,
      })),
    };
  }
  const lineStart = before.slice(before.lastIndexOf('\n') + 1);
  const owner = paramsOwnerAt(file.ast, offset);
  if (owner) {
    const keyPosition = /(^|[{,])\s*[A-Za-z0-9_$-]*$/.test(before.slice(Math.max(0, owner.object.span.start)));
    if (!keyPosition || !owner.direct) return { replaceFrom, items: [] };
    const schema = ownerSchema(project.registry, owner.owner);
    if (!schema) return { replaceFrom, items: [] };
    const present = new Set(owner.object.entries.map((e) => e.key).filter((k) => k !== word));
    const items = Object.entries(paramProperties(schema))
      .filter(([name]) => !present.has(name))
      .map(([name, property]) => ({
        label: name,
        kind: 'param' as const,
        detail: `${typeOfSchema(property)}${isRequired(schema, name) ? ' (required)' : ''}`,
        documentation: typeof property['description'] === 'string' ? property['description'] : '',
        insertText: `${name}: `,
      }));
    return { replaceFrom, items };
  }
  if (!/^\s*[A-Za-z0-9_$-]*$/.test(lineStart)) return { replaceFrom, items: [] };
  const pipeline = file.ast.decls.find(
    (d) => (d.kind === 'pipeline' || d.kind === 'capsule') && d.span.start < offset && offset < d.span.end,
  );
  if (pipeline) {
    const connectors = [...project.registry.connectors.values()].map((s) => ({
      label: s.name,
      kind: 'connector' as const,
      detail: 'connector',
      documentation: s.summary,
    }));
    const keywords = [...STEP_KEYWORDS, ...(pipeline.kind === 'pipeline' ? PIPELINE_KEYWORDS : [])].map((k) => ({
      label: k,
      kind: 'keyword' as const,
    }));
    return { replaceFrom, items: [...connectors, ...keywords] };
  }
  return { replaceFrom, items: DECL_KEYWORDS.map((k) => ({ label: k, kind: 'keyword' as const })) };
}

function functionItem(signature: FunctionSignature): CompletionEntry {
  return {
    label: signature.name,
    kind: 'function',
    detail: signatureText(signature),
    documentation: `${signature.summary}\n\nExample: ${signature.example}`,
    insertText: `${signature.name}(`,
  };
}

/** True when the cursor is after a `{{` that is not yet closed. */
function insideBraces(before: string): boolean {
  return before.lastIndexOf('{{') > before.lastIndexOf('}}');
}

/**
 * The connector step or trigger whose parameter block contains the offset; `direct` is false when a
 * nested object or array of a parameter value holds it.
 */
function paramsOwnerAt(
  file: PipeFile,
  offset: number,
): { owner: Owner; object: ObjectValue; direct: boolean } | undefined {
  const inside = (span: Span): boolean => span.start < offset && offset < span.end;
  const ownerOf = (object: ObjectValue, owner: Owner) => ({
    owner,
    object,
    direct: !object.entries.some((e) => e.kind === 'entry' && nestedContains(e.value, offset)),
  });
  const fromSteps = (steps: readonly Step[]): ReturnType<typeof paramsOwnerAt> => {
    for (const step of steps) {
      if (!inside(step.span)) continue;
      if (step.kind === 'connector') {
        for (const entry of step.params.entries)
          if (entry.kind === 'steps-entry' && inside(entry.span)) return fromSteps(entry.steps);
        return inside(step.params.span) ? ownerOf(step.params, { kind: 'connector', step }) : undefined;
      }
      if (step.kind === 'choice') {
        for (const when of step.whens)
          if (when.body.kind === 'inline' && inside(when.body.span)) return fromSteps(when.body.steps);
        if (step.otherwise?.kind === 'inline') return fromSteps(step.otherwise.steps);
      }
      if (step.kind === 'try') return fromSteps(step.body) ?? fromSteps(step.catchBody);
      if (step.kind === 'for-each') return fromSteps(step.body);
      return undefined;
    }
    return undefined;
  };
  for (const decl of file.decls) {
    if (!inside(decl.span)) continue;
    if (decl.kind === 'pipeline') {
      if (decl.trigger && inside(decl.trigger.config.span))
        return ownerOf(decl.trigger.config, { kind: 'trigger', trigger: decl.trigger });
      return (
        fromSteps(decl.steps) ??
        (decl.onError ? fromSteps(decl.onError) : undefined) ??
        decl.branches.map((b) => fromSteps(b.steps)).find((x) => x)
      );
    }
    if (decl.kind === 'capsule') return fromSteps(decl.steps);
  }
  return undefined;
}

function nestedContains(value: Value, offset: number): boolean {
  return (
    (value.kind === 'object' || value.kind === 'array' || value.kind === 'tagged') &&
    value.span.start < offset &&
    offset < value.span.end
  );
}
