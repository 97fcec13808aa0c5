/**
 * `pipec fmt`: the one canonical layout of a .pipe file.
 *
 * In: a file's path and text. Out: the formatted text, or the syntax diagnostics that stopped it
 * (a file that does not parse cleanly is never formatted). The layout is printed from the AST;
 * every leaf (strings, `"""` strings, `{{ }}`, numbers, names) is copied from the source verbatim, so
 * formatting only moves whitespace, commas and comments and never changes meaning. Comments are
 * re-attached by offset (trivia.ts): a comment on its own line stays before what follows it, a
 * comment after code on the same line stays at the end of that line, anything else is kept before
 * the next line-level item. Rules:
 *   - 2-space indentation, one step / entry per line, one blank line between top-level declarations
 *     (one-line imports, globals, stores or accounts written together may stay grouped), at most one
 *     blank line kept where the source had one;
 *   - an object or array that fits in 100 columns (and holds no comment, steps or multi-line text)
 *     stays on one line `{ a: 1, b: 2 }`; otherwise one entry per line, each with a trailing comma;
 *   - blocks of steps are always one step per line.
 */
import type { IToken } from 'chevrotain';
import type {
  ArrayValue,
  BranchBody,
  CapsuleDecl,
  ChoiceStep,
  Decl,
  ForEachStep,
  ObjectEntry,
  ObjectValue,
  PipeFile,
  PipelineDecl,
  Step,
  StepsEntry,
  TestDecl,
  TryStep,
  Value,
} from '../ast/ast.js';
import { parseFile } from '../ast/parse-file.js';
import { hasErrors, type Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import { tokenize } from '../../grammar/lexer.js';
import { collectTrivia, type Comment, type Trivia } from './trivia.js';

export const MAX_WIDTH = 100;
/** One-line declarations of these kinds may stay in a group without blank lines between them. */
const GROUPABLE: ReadonlySet<Decl['kind']> = new Set(['import', 'global', 'store', 'account']);
const INDENT = '  ';

export interface FormatResult {
  /** The formatted text; absent when the file has syntax errors. */
  readonly text?: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** Formats one .pipe file. Pure: the same input always gives the same output. */
export function formatPipe(path: string, source: string): FormatResult {
  const parsed = parseFile(path, source);
  if (hasErrors(parsed.diagnostics)) return { diagnostics: parsed.diagnostics };
  const lexed = tokenize(path, source);
  const printer = new Printer(source, collectTrivia(source, lexed.tokens));
  return { text: printer.file(parsed.value), diagnostics: parsed.diagnostics };
}

/** Where a line-level item starts and ends in the source, and how to print its text. */
interface Item {
  readonly start: number;
  readonly end: number;
  readonly print: () => void;
  /** Appended after the item (`,` in broken objects and arrays). */
  readonly separator?: string;
}

function isCommentLine(line: string): boolean {
  return /^\s*(\/\/|\/\*)/.test(line);
}

class Printer {
  private readonly lines: string[] = [];
  private current = '';
  private currentIndent = 0;
  private depth = 0;
  private nextComment = 0;

  constructor(
    private readonly text: string,
    private readonly trivia: Trivia,
  ) {}

  // ───────────────────────────── output primitives ─────────────────────────────

  private write(text: string): void {
    if (this.current === '') this.currentIndent = this.depth;
    this.current += text;
  }

  private newline(): void {
    if (this.current !== '') this.lines.push(INDENT.repeat(this.currentIndent) + this.current);
    this.current = '';
  }

  private blankLine(): void {
    this.newline();
    const last = this.lines[this.lines.length - 1];
    if (last === undefined || last === '' || /[{[(]$/.test(last)) return;
    this.lines.push('');
  }

  /** The column the next write lands on (text after the last line break of a multi-line leaf). */
  private column(): number {
    const lastBreak = this.current.lastIndexOf('\n');
    if (lastBreak >= 0) return this.current.length - lastBreak - 1;
    return (this.current === '' ? this.depth : this.currentIndent) * INDENT.length + this.current.length;
  }

  private raw(span: Span): string {
    return this.text.slice(span.start, span.end);
  }

  // ───────────────────────────── comments ─────────────────────────────

  private peekComment(): Comment | undefined {
    return this.trivia.comments[this.nextComment];
  }

  /** Prints, each on its own line, every not-yet-printed comment that starts before `offset`. */
  private leadingComments(offset: number): void {
    for (let c = this.peekComment(); c && c.start < offset; c = this.peekComment()) {
      this.newline();
      if (this.trivia.blankLineBefore(c.start)) this.blankLine();
      this.write(c.text);
      this.newline();
      this.nextComment++;
    }
  }

  /** Appends comments that followed `end` on the same source line (only blanks and commas between). */
  private trailingComments(end: number): void {
    let from = end;
    for (let c = this.peekComment(); c && c.start >= from; c = this.peekComment()) {
      const gap = this.text.slice(from, c.start);
      if (!/^[ \t,]*$/.test(gap)) return;
      this.write(` ${c.text}`);
      this.nextComment++;
      from = c.end;
      if (c.kind === 'line') return;
    }
  }

  private hasCommentIn(span: Span): boolean {
    const comments = this.trivia.comments;
    let lo = 0;
    let hi = comments.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((comments[mid] as Comment).start < span.start) lo = mid + 1;
      else hi = mid;
    }
    const first = comments[lo];
    return first !== undefined && first.start < span.end;
  }

  /** One line-level item: its leading comments, a kept blank line, the item, its trailing comment. */
  private item(item: Item): void {
    this.leadingComments(item.start);
    this.newline();
    if (this.trivia.blankLineBefore(item.start)) this.blankLine();
    item.print();
    if (item.separator) this.write(item.separator);
    this.trailingComments(item.end);
    this.newline();
  }

  /** `{` + items one per line + `}`; comments left before `close` stay inside the block. */
  private block(open: number, close: number, items: readonly Item[]): void {
    if (items.length === 0 && !this.hasCommentIn({ file: '', start: open, end: close })) {
      this.write('{}');
      return;
    }
    this.write('{');
    this.trailingComments(open + 1);
    this.newline();
    this.depth++;
    for (const item of items) this.item(item);
    this.leadingComments(close);
    this.depth--;
    this.write('}');
  }

  // ───────────────────────────── file and declarations ─────────────────────────────

  file(ast: PipeFile): string {
    let previous: { kind: Decl['kind'] | 'test'; lines: number } | undefined;
    const tops: (Decl | TestDecl)[] = [...ast.decls, ...(ast.tests ?? [])].sort((a, b) => a.span.start - b.span.start);
    for (const decl of tops) {
      const grouped =
        previous !== undefined &&
        previous.kind === decl.kind &&
        previous.lines === 1 &&
        decl.kind !== 'test' &&
        GROUPABLE.has(decl.kind);
      if (previous && !grouped) this.blankLine();
      const before = this.lines.length;
      this.item({
        start: decl.span.start,
        end: decl.span.end,
        print: () => (decl.kind === 'test' ? this.verbatim(decl.span) : this.decl(decl)),
      });
      previous = {
        kind: decl.kind,
        lines: this.lines
          .slice(before)
          .filter((l) => l !== '' && !isCommentLine(l))
          .join('\n')
          .split('\n').length,
      };
    }
    this.leadingComments(Number.POSITIVE_INFINITY);
    this.newline();
    return this.lines.length === 0 ? '' : `${this.lines.join('\n')}\n`;
  }

  /** `test` blocks (pipec test) are kept exactly as written, comments included. */
  private verbatim(span: Span): void {
    this.write(this.raw(span));
    for (let c = this.peekComment(); c && c.start < span.end; c = this.peekComment()) this.nextComment++;
  }

  private decl(decl: Decl): void {
    switch (decl.kind) {
      case 'import':
        this.write(`import ${this.raw(decl.pathSpan)}${decl.alias ? ` as ${decl.alias}` : ''}`);
        return;
      case 'schema':
        this.write(`schema ${decl.name} `);
        this.value(decl.value, 0);
        return;
      case 'account':
        this.write(`account ${decl.name}: ${decl.accountType} `);
        this.value(decl.config, 0);
        return;
      case 'global':
        this.write(`global ${decl.name} = `);
        this.value(decl.value, 0);
        return;
      case 'store':
        this.write(`store ${decl.name}`);
        if (decl.options) {
          this.write(' ');
          this.value(decl.options, 0);
        }
        return;
      case 'pipeline':
        this.pipeline(decl);
        return;
      case 'capsule':
        this.capsule(decl);
        return;
    }
  }

  private pipeline(decl: PipelineDecl): void {
    this.write(`pipeline ${decl.name}`);
    if (decl.options) this.write(` ${this.parenEntries(decl.options)}`);
    this.write(' ');
    const open = this.trivia.nextToken(decl.options?.span.end ?? decl.nameSpan.end, '{');
    const items: Item[] = [];
    const trigger = decl.trigger;
    if (trigger) {
      items.push({
        start: trigger.span.start,
        end: trigger.span.end,
        print: () => {
          this.write(`trigger ${trigger.kind} `);
          this.value(trigger.config, 0);
        },
      });
    }
    items.push(...decl.steps.map((s) => this.stepItem(s)));
    for (const branch of decl.branches) {
      items.push({
        start: branch.span.start,
        end: branch.span.end,
        print: () => {
          this.write(`branch ${branch.name} `);
          const open = this.trivia.nextToken(branch.nameSpan.end, '{');
          this.branchBody({
            kind: 'inline',
            steps: branch.steps,
            span: { file: branch.span.file, start: open, end: branch.span.end },
          });
        },
      });
    }
    if (decl.onError) {
      const onErrorSteps = decl.onError;
      const start = this.onErrorKeyword(decl);
      const blockOpen = this.trivia.nextToken(start, '{');
      const blockClose = this.matchingClose(blockOpen);
      items.push({
        start,
        end: blockClose + 1,
        print: () => {
          this.write('on-error ');
          this.stepsBlock(blockOpen, blockClose, onErrorSteps);
        },
      });
    }
    items.sort((a, b) => a.start - b.start);
    this.block(open, decl.span.end - 1, items);
  }

  /** The `on-error` keyword of a pipeline: the one not inside its trigger, steps or branches. */
  private onErrorKeyword(decl: PipelineDecl): number {
    const inside = [decl.trigger?.span, ...decl.steps.map((s) => s.span), ...decl.branches.map((b) => b.span)].filter(
      (s): s is Span => s !== undefined,
    );
    const keyword = this.trivia
      .tokensIn(decl.span.start, decl.span.end)
      .find((t) => t.image === 'on-error' && !inside.some((s) => t.startOffset >= s.start && t.startOffset < s.end));
    return keyword ? keyword.startOffset : decl.span.end - 1;
  }

  private capsule(decl: CapsuleDecl): void {
    const params = decl.params.map((p) => (p.type ? `${p.name}: ${p.type}` : p.name)).join(', ');
    this.write(`capsule ${decl.name}(${params})`);
    const close = this.trivia.nextToken(decl.nameSpan.end, ')');
    if (decl.output) {
      this.write(' -> ');
      this.value(decl.output, 2);
    }
    this.write(' ');
    const open = this.trivia.nextToken(decl.output ? decl.output.span.end : close, '{');
    this.stepsBlock(open, decl.span.end - 1, decl.steps);
  }

  // ───────────────────────────── steps ─────────────────────────────

  private stepItem(step: Step): Item {
    return { start: step.span.start, end: step.span.end, print: () => this.step(step) };
  }

  private stepsBlock(open: number, close: number, steps: readonly Step[]): void {
    this.block(
      open,
      close,
      steps.map((s) => this.stepItem(s)),
    );
  }

  private step(step: Step): void {
    switch (step.kind) {
      case 'connector':
        this.write([step.connector, ...step.args.map((a) => this.raw(a.span))].join(' '));
        this.write(' ');
        this.value(step.params, 0);
        return;
      case 'respond':
        this.write(`respond ${this.raw(step.statusSpan)}`);
        if (step.body) {
          this.write(' ');
          this.value(step.body, step.headers ? 9 : 0);
        }
        if (step.headers) {
          this.write(' headers ');
          this.value(step.headers, 0);
        }
        return;
      case 'fail':
        this.write(step.statusSpan ? `fail ${this.raw(step.statusSpan)} ` : 'fail ');
        this.value(step.message, 0);
        return;
      case 'choice':
        this.choice(step);
        return;
      case 'try':
        this.tryStep(step);
        return;
      case 'for-each':
        this.forEach(step);
        return;
    }
  }

  private choice(step: ChoiceStep): void {
    this.write(step.label ? `choice ${step.label} ` : 'choice ');
    const open = this.trivia.nextToken(step.labelSpan?.end ?? step.span.start, '{');
    const items: Item[] = step.whens.map((when) => ({
      start: when.span.start,
      end: when.span.end,
      print: () => {
        this.write('when ');
        this.value(when.condition, 2);
        this.write(' ');
        this.branchBody(when.body);
      },
    }));
    const otherwise = step.otherwise;
    if (otherwise) {
      const start = step.otherwiseSpan?.start ?? otherwise.span.start;
      items.push({
        start,
        end: otherwise.span.end,
        print: () => {
          this.write('otherwise ');
          this.branchBody(otherwise);
        },
      });
    }
    this.block(open, step.span.end - 1, items);
  }

  /** A branch of one short simple step stays on one line: `when "$" { respond 200 { ok: true } }`. */
  private branchBody(body: BranchBody): void {
    if (body.kind === 'ref') {
      this.write(`-> ${body.name}`);
      return;
    }
    const [only] = body.steps;
    const flat = body.steps.length === 1 && only && !this.hasCommentIn(body.span) ? this.flatStep(only) : undefined;
    if (flat !== undefined && this.column() + flat.length + 4 <= MAX_WIDTH) {
      this.write(`{ ${flat} }`);
      return;
    }
    this.stepsBlock(body.span.start, body.span.end - 1, body.steps);
  }

  /** The one-line form of a connector, respond or fail step; undefined for anything else. */
  private flatStep(step: Step): string | undefined {
    const parts: (string | undefined)[] = [];
    switch (step.kind) {
      case 'connector':
        parts.push(step.connector, ...step.args.map((a) => this.raw(a.span)), this.flat(step.params));
        break;
      case 'respond':
        parts.push('respond', this.raw(step.statusSpan));
        if (step.body) parts.push(this.flat(step.body));
        if (step.headers) parts.push('headers', this.flat(step.headers));
        break;
      case 'fail':
        parts.push('fail', ...(step.statusSpan ? [this.raw(step.statusSpan)] : []), this.flat(step.message));
        break;
      default:
        return undefined;
    }
    return parts.every((p) => p !== undefined) ? parts.join(' ') : undefined;
  }

  private tryStep(step: TryStep): void {
    this.write('try ');
    const open = this.trivia.nextToken(step.span.start, '{');
    const close = this.matchingClose(open);
    this.stepsBlock(open, close, step.body);
    this.write(' catch ');
    const catchOpen = this.trivia.nextToken(close + 1, '{');
    this.stepsBlock(catchOpen, this.matchingClose(catchOpen), step.catchBody);
  }

  private forEach(step: ForEachStep): void {
    this.write(step.label ? `for-each ${step.label} ` : 'for-each ');
    this.value(step.over, 2);
    if (step.options) this.write(` ${this.parenEntries(step.options)}`);
    this.write(' ');
    const open = this.trivia.nextToken(step.options?.span.end ?? step.over.span.end, '{');
    this.stepsBlock(open, step.span.end - 1, step.body);
  }

  /** The `}` matching the `{` token at `open` (tokens only: `{{ }}` and strings are single tokens). */
  private matchingClose(open: number): number {
    let depth = 0;
    for (const token of this.trivia.tokensIn(open, this.text.length)) {
      if (token.image === '{') depth++;
      else if (token.image === '}') {
        depth--;
        if (depth === 0) return token.startOffset;
      }
    }
    return this.text.length;
  }

  // ───────────────────────────── values ─────────────────────────────

  /** `(k: v, …)` options: always on one line (they are short by nature). */
  private parenEntries(options: ObjectValue): string {
    const entries = options.entries.map((e) =>
      e.kind === 'entry' ? `${this.raw(e.keySpan)}: ${this.flat(e.value) ?? this.raw(e.value.span)}` : this.raw(e.span),
    );
    return `(${entries.join(', ')})`;
  }

  /**
   * Prints a value at the current position: on one line when it can be and fits (leaving `reserve`
   * columns for what must follow on the line), otherwise broken one entry per line.
   */
  private value(value: Value, reserve: number): void {
    switch (value.kind) {
      case 'object':
      case 'array': {
        const flat = this.flat(value);
        if (flat !== undefined && this.column() + flat.length + reserve <= MAX_WIDTH) this.write(flat);
        else if (value.kind === 'object') this.brokenObject(value);
        else this.brokenArray(value);
        return;
      }
      case 'tagged':
        this.write(`${value.tag} `);
        this.value(value.value, reserve);
        return;
      default:
        this.write(this.leaf(value));
    }
  }

  private brokenObject(object: ObjectValue): void {
    const items = object.entries.map((entry): Item => ({
      start: entry.span.start,
      end: entry.span.end,
      print: () => this.entry(entry),
      ...(entry.kind === 'entry' ? { separator: ',' } : {}),
    }));
    this.block(object.span.start, object.span.end - 1, items);
  }

  private entry(entry: ObjectEntry | StepsEntry): void {
    this.write(this.raw(entry.keySpan));
    if (entry.kind === 'steps-entry') {
      this.write(' ');
      this.stepsBlock(this.trivia.nextToken(entry.keySpan.end, '{'), entry.span.end - 1, entry.steps);
      return;
    }
    this.write(': ');
    this.value(entry.value, 1);
  }

  private brokenArray(array: ArrayValue): void {
    if (array.items.length === 0 && !this.hasCommentIn(array.span)) {
      this.write('[]');
      return;
    }
    this.write('[');
    this.trailingComments(array.span.start + 1);
    this.newline();
    this.depth++;
    for (const item of array.items)
      this.item({ start: item.span.start, end: item.span.end, print: () => this.value(item, 1), separator: ',' });
    this.leadingComments(array.span.end - 1);
    this.depth--;
    this.write(']');
  }

  /** The one-line form of a value, or undefined when it must be broken. */
  private flat(value: Value): string | undefined {
    switch (value.kind) {
      case 'object': {
        if (this.hasCommentIn(value.span)) return undefined;
        if (value.entries.length === 0) return '{}';
        const parts: string[] = [];
        for (const entry of value.entries) {
          if (entry.kind === 'steps-entry') return undefined;
          const inner = this.flat(entry.value);
          if (inner === undefined) return undefined;
          parts.push(`${this.raw(entry.keySpan)}: ${inner}`);
        }
        return `{ ${parts.join(', ')} }`;
      }
      case 'array': {
        if (this.hasCommentIn(value.span)) return undefined;
        const parts: string[] = [];
        for (const item of value.items) {
          const inner = this.flat(item);
          if (inner === undefined) return undefined;
          parts.push(inner);
        }
        return `[${parts.join(', ')}]`;
      }
      case 'tagged': {
        const inner = this.flat(value.value);
        return inner === undefined ? undefined : `${value.tag} ${inner}`;
      }
      default: {
        const leaf = this.leaf(value);
        return leaf.includes('\n') ? undefined : leaf;
      }
    }
  }

  /** A scalar exactly as written (`env(…)` rebuilt from its string tokens, without stray blanks). */
  private leaf(value: Value): string {
    if (value.kind === 'env') {
      const strings = this.trivia
        .tokensIn(value.span.start, value.span.end)
        .filter((t: IToken) => t.image.startsWith('"') || t.image.startsWith("'"));
      return `env(${strings.map((t) => t.image).join(', ')})`;
    }
    return this.raw(value.span);
  }
}
