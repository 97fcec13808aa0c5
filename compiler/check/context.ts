/**
 * The state of checking one pipeline: what is known so far (labels, step output shapes) and what
 * the check produces besides diagnostics (hoisted constants, validator modules, execute edges).
 * One context per pipeline; nothing survives between compile runs.
 */
import type { BranchDecl, ConnectorStep } from '../ast/ast.js';
import type { BracesEnv } from '../braces/index.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Hoisted, SourceRef, ValidatorModule } from '../lower/plan.js';
import type { Declarations } from '../resolve/declarations.js';
import type { SchemaLocator } from '../resolve/schema-refs.js';
import type { SourceFile } from '../../base/source/source-file.js';
import type { Span } from '../../base/source/span.js';
import type { PipeType } from '../types/pipe-type.js';
import type { ParamValidators } from './check-params.js';
import type { DiagnosticCode } from '../../base/diagnostics/codes.js';
import type { ContractFacts } from './contracts.js';
import { invalidSchema, schemaKeywordDiagnostic } from './errors.js';
import { detectDraft, DRAFTS, type Draft, type SchemaCompiler, type SchemaProblem } from './json-schema.js';

export interface ServiceFacts {
  readonly registry: ConnectorRegistry;
  readonly decls: Declarations;
  readonly validators: ParamValidators;
  readonly sourceOf: (file: string) => SourceFile | undefined;
  /** How files are named in provenance comments (relative to the working directory). */
  readonly sourcePath: (file: string) => string;
  readonly globalTypes: Readonly<Record<string, PipeType>>;
  readonly accountTypes: Readonly<Record<string, PipeType>>;
  /** Checks and compiles JSON Schemas once per distinct schema in this compile run. */
  readonly schemas: SchemaCompiler;
  /** What each pipeline's trigger declares it receives (contracts.ts), complete before any step is checked. */
  readonly contracts: ContractFacts;
  /** false for `pipec check`: code is not generated, so optimisations of it are skipped (same diagnostics). */
  readonly forEmit: boolean;
  /** What each `publish` / `execute` step sent, as checked (senders.ts), by step. */
  readonly sent: Map<ConnectorStep, { type: PipeType; span: Span }[]>;
}

export interface ExecuteEdge {
  readonly from: string;
  readonly to: string;
  readonly span: Span;
}

/** The message shape a step receives, for editors (hover, `message.` completion). */
export interface StepShape {
  readonly span: Span;
  readonly message: PipeType;
}

export class PipelineContext {
  readonly diagnostics: Diagnostic[] = [];
  readonly shapes: StepShape[] = [];
  readonly hoisted: Hoisted[] = [];
  readonly validators: ValidatorModule[] = [];
  readonly namespaces = new Set<'B' | 'J' | 'L'>();
  readonly labels = new Map<string, Span>();
  readonly stepTypes: Record<string, PipeType> = Object.create(null) as Record<string, PipeType>;
  readonly executes: ExecuteEdge[] = [];
  readonly usedBranches = new Set<string>();
  private readonly usedNames = new Set<string>();

  constructor(
    readonly facts: ServiceFacts,
    readonly pipeline: string,
    readonly file: string,
    readonly branches: ReadonlyMap<string, BranchDecl>,
    /** Inside a capsule: the types of its parameters (`capsule.x`). */
    readonly capsuleScope?: Readonly<Record<string, PipeType>>,
  ) {}

  source(span: Span): SourceRef {
    const file = this.facts.sourceOf(span.file);
    return { file: this.facts.sourcePath(span.file), line: file ? file.positionOf(span.start).line : 1 };
  }

  /** A unique JavaScript identifier for a module-level declaration. */
  uniqueName(hint: string): string {
    const base =
      hint
        .replace(/[^A-Za-z0-9_$]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))
        .replace(/^[^A-Za-z_$]/, '_$&') || 'value';
    let name = base;
    for (let i = 2; this.usedNames.has(name); i++) name = `${base}${i}`;
    this.usedNames.add(name);
    return name;
  }

  hoist(hint: string, js: string, comment?: string): string {
    const name = this.uniqueName(hint);
    this.hoisted.push({ name, js, ...(comment ? { comment } : {}) });
    return name;
  }

  addValidator(hint: string, code: string): string {
    // Validator modules share one folder for the whole service: the pipeline name keeps them apart.
    const name = this.uniqueName(`validate-${this.pipeline}-${hint}`);
    this.validators.push({ name, code });
    return name;
  }

  private readonly compiledSchemas = new Map<string, string>();

  /**
   * Checks a JSON Schema (PIPE3006 at `span` when invalid) and compiles it to a validator module;
   * returns the validator's import name. The draft: explicit, else `$schema`, else draft-07.
   */
  compileSchema(
    schema: unknown,
    span: Span,
    explicitDraft: string | undefined,
    hint: string,
    locate?: SchemaLocator,
  ): string | undefined {
    const draft: Draft = (DRAFTS as readonly string[]).includes(explicitDraft ?? '')
      ? (explicitDraft as Draft)
      : (detectDraft(schema) ?? 'draft-07');
    const key = `${draft}:${JSON.stringify(schema)}`;
    const cached = this.compiledSchemas.get(key);
    if (cached) return cached;
    const outcome = this.facts.schemas.compile(schema, draft);
    if (!outcome.ok) {
      this.diagnostics.push(...schemaDiagnostics(outcome.problems, draft, span, locate));
      return undefined;
    }
    this.diagnostics.push(...schemaDiagnostics(outcome.findings, draft, span, locate));
    const name = this.addValidator(hint, outcome.code);
    this.compiledSchemas.set(key, name);
    return name;
  }

  bracesEnv(message: PipeType, extra: Partial<BracesEnv> = {}): BracesEnv {
    this.namespaces.add('B');
    return {
      file: this.file,
      message,
      globals: this.facts.globalTypes,
      accounts: this.facts.accountTypes,
      steps: { ...this.stepTypes },
      ...(this.capsuleScope ? { capsule: this.capsuleScope } : {}),
      ...extra,
    };
  }
}

/**
 * The diagnostics of a schema that does not compile: every pattern and format problem with its own
 * code, else the most specific meta-schema problem (ajv reports one several ways: enum, type, anyOf).
 */
export function schemaDiagnostics(
  problems: readonly SchemaProblem[],
  draft: Draft,
  span: Span,
  locate?: SchemaLocator,
): Diagnostic[] {
  const where = (pointer: string, onKey?: boolean): Span => (locate ? locate(pointer, onKey) : span);
  const coded = problems.filter((p): p is SchemaProblem & { code: DiagnosticCode } => p.code !== undefined);
  if (coded.length > 0) {
    return coded.map((p) =>
      schemaKeywordDiagnostic(
        { code: p.code, message: p.message, label: p.label ?? 'here', ...(p.hint ? { hint: p.hint } : {}) },
        where(p.pointer, p.onKey),
      ),
    );
  }
  const specific =
    problems.find((p) => p.keyword === 'enum') ?? problems.find((p) => p.keyword !== 'anyOf') ?? problems[0];
  if (!specific) return [];
  return [invalidSchema(draft, specific.message, where(specific.pointer))];
}
