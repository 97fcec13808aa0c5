/**
 * Walking the AST: every step of a file at any depth (blocks of choice, try, for-each, steps
 * entries like `on-fail`, pipeline on-error and branches, capsule bodies). One place, so every pass
 * that looks for steps sees the same ones.
 */
import type { ConnectorStep, Decl, PipeFile, Step } from './ast.js';

/** Calls `visit` for each step inside `steps`, depth first, in source order. */
export function walkSteps(steps: readonly Step[], visit: (step: Step) => void): void {
  for (const step of steps) {
    visit(step);
    switch (step.kind) {
      case 'connector':
        for (const entry of step.params.entries) if (entry.kind === 'steps-entry') walkSteps(entry.steps, visit);
        break;
      case 'choice':
        for (const when of step.whens) if (when.body.kind === 'inline') walkSteps(when.body.steps, visit);
        if (step.otherwise?.kind === 'inline') walkSteps(step.otherwise.steps, visit);
        break;
      case 'try':
        walkSteps(step.body, visit);
        walkSteps(step.catchBody, visit);
        break;
      case 'for-each':
        walkSteps(step.body, visit);
        break;
      default:
        break;
    }
  }
}

/** Every step of a declaration (pipeline steps, on-error, branches; capsule body). */
export function walkDeclSteps(decl: Decl, visit: (step: Step) => void): void {
  if (decl.kind === 'pipeline') {
    walkSteps(decl.steps, visit);
    if (decl.onError) walkSteps(decl.onError, visit);
    for (const branch of decl.branches) walkSteps(branch.steps, visit);
  } else if (decl.kind === 'capsule') {
    walkSteps(decl.steps, visit);
  }
}

/** Every connector step of a file, at any depth. */
export function connectorStepsOf(file: PipeFile): ConnectorStep[] {
  const out: ConnectorStep[] = [];
  for (const decl of file.decls)
    walkDeclSteps(decl, (step) => {
      if (step.kind === 'connector') out.push(step);
    });
  return out;
}
