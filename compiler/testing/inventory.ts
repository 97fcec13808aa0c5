/**
 * What tests can name in a pipeline, read from its AST: every connector step (its key as the
 * runtime's StepInfo gives it, its label, its first header word such as a publish's event), every
 * choice with its branches (conditions as written, `-> NAME` targets, otherwise), labelled for-each
 * loops, and the events the pipeline publishes. Keys match runtime/testing/test-plan.ts, so the
 * compiler resolves names and the runner only compares keys.
 */
import type { BranchBody, ConnectorStep, ObjectValue, PipelineDecl, Step, Value } from '../ast/ast.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { refParams, stepParam } from '../connectors/schema-facts.js';
import type { SourceFile } from '../../base/source/source-file.js';
import type { Span } from '../../base/source/span.js';
import { branchKey, stepKey } from '../../runtime/testing/test-plan.js';

export interface IndexedStep {
  readonly key: string;
  readonly connector: string;
  readonly label?: string;
  /** The first header word (`publish order-approved`, `store reprocess.insert`), when the connector takes one. */
  readonly headerWord?: string;
  /** `file.pipe:line`. */
  readonly source: string;
  readonly span: Span;
}

export interface IndexedBranch {
  readonly key: string;
  /** The condition as written (`$.body[?(@.total < 500)]`, `{{ x > 1 }}`), or `otherwise`. */
  readonly condition: string;
  /** `-> NAME`: the pipeline branch it routes to. */
  readonly target?: string;
  /** `choice LABEL`, when the choice has one. */
  readonly choiceLabel?: string;
  /** For coverage reports: `file.pipe:line when …`. */
  readonly name: string;
}

export interface PipelineIndex {
  readonly name: string;
  readonly steps: readonly IndexedStep[];
  readonly branches: readonly IndexedBranch[];
  readonly forEachLabels: ReadonlySet<string>;
  /** Events its steps publish (parameters marked `x-pipe-ref: event`); `undefined` inside means one is computed at run time. */
  readonly events: ReadonlySet<string | undefined>;
}

export interface IndexContext {
  readonly registry: ConnectorRegistry;
  readonly sourceOf: (file: string) => SourceFile | undefined;
  readonly sourcePath: (file: string) => string;
}

export function indexPipeline(pipeline: PipelineDecl, ctx: IndexContext): PipelineIndex {
  const steps: IndexedStep[] = [];
  const branches: IndexedBranch[] = [];
  const forEachLabels = new Set<string>();
  const events = new Set<string | undefined>();
  const sourceOf = (span: Span): string =>
    `${ctx.sourcePath(span.file)}:${ctx.sourceOf(span.file)?.positionOf(span.start).line ?? 1}`;

  const visitParams = (params: ObjectValue): void => {
    for (const entry of params.entries) if (entry.kind === 'steps-entry') visitSteps(entry.steps);
  };
  const visitBody = (body: BranchBody | undefined): void => {
    if (body?.kind === 'inline') visitSteps(body.steps);
  };
  const visitConnector = (step: ConnectorStep): void => {
    const positional = ctx.registry.connectors.get(step.connector)?.positional ?? [];
    const labelArg = step.args[positional.length];
    const label = labelArg?.kind === 'word' ? labelArg.text : undefined;
    const headerWord = positional.length > 0 ? step.args[0]?.text : undefined;
    const source = sourceOf(step.span);
    steps.push({
      key: stepKey(source, step.connector, label),
      connector: step.connector,
      source,
      span: step.span,
      ...(label !== undefined ? { label } : {}),
      ...(headerWord !== undefined ? { headerWord } : {}),
    });
    const schema = ctx.registry.connectors.get(step.connector);
    if (schema) for (const key of refParams(schema, 'event')) events.add(stepParam(step, schema, key)?.name);
    visitParams(step.params);
  };
  const visitSteps = (list: readonly Step[]): void => {
    for (const step of list) {
      switch (step.kind) {
        case 'connector':
          visitConnector(step);
          break;
        case 'choice': {
          const source = sourceOf(step.span);
          const label = step.label !== undefined ? { choiceLabel: step.label } : {};
          step.whens.forEach((when, i) => {
            const condition = conditionText(when.condition);
            branches.push({
              key: branchKey(source, i),
              condition,
              name: `${source} when ${condition}`,
              ...label,
              ...(when.body.kind === 'ref' ? { target: when.body.name } : {}),
            });
            visitBody(when.body);
          });
          if (step.otherwise) {
            branches.push({
              key: branchKey(source, step.whens.length),
              condition: 'otherwise',
              name: `${source} otherwise`,
              ...label,
              ...(step.otherwise.kind === 'ref' ? { target: step.otherwise.name } : {}),
            });
            visitBody(step.otherwise);
          }
          break;
        }
        case 'try':
          visitSteps(step.body);
          visitSteps(step.catchBody);
          break;
        case 'for-each':
          if (step.label !== undefined) forEachLabels.add(step.label);
          visitSteps(step.body);
          break;
        default:
          break;
      }
    }
  };
  visitSteps(pipeline.steps);
  for (const branch of pipeline.branches) visitSteps(branch.steps);
  visitSteps(pipeline.onError ?? []);
  return { name: pipeline.name, steps, branches, forEachLabels, events };
}

/** A condition as written, for matching `expect branch "…"`: JSONPath text, or `{{ … }}` with its expression. */
export function conditionText(value: Value): string {
  if (value.kind === 'string') return value.value;
  if (value.kind === 'braces') return `{{ ${value.text.trim()} }}`;
  if (value.kind === 'template')
    return value.parts.map((part) => (part.kind === 'text' ? part.value : `{{ ${part.text.trim()} }}`)).join('');
  return '';
}

/** Conditions compare without the braces and surrounding spaces: `"{{ x }}"`, `{{x}}` and `x` are one. */
export function normalizeCondition(text: string): string {
  const trimmed = text.trim();
  const inner = /^\{\{([\s\S]*)\}\}$/.exec(trimmed);
  return (inner ? (inner[1] ?? '') : trimmed).replace(/\s+/g, ' ').trim();
}
