/**
 * Commands for trying things from the terminal: `eval` (Double Braces), `jolt`, `jslt`, and the
 * reference commands `explain` (a diagnostic code) and `schema` (connector parameter schemas).
 */
import fs from 'node:fs';
import path from 'node:path';
import { evaluateExpression } from '../braces/index.js';
import { CODES, isDiagnosticCode } from '../../base/diagnostics/codes.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import { renderDiagnostic } from '../../base/diagnostics/render-text.js';
import { compileJoltChain, joltToFunction, locateInJson } from '../jolt/index.js';
import { compileJslt, jsltToFunction } from '../jslt/index.js';
import { SourceFile } from '../../base/source/source-file.js';
import type { Output } from './compile-files.js';
import type { Command } from './pipec.js';
import { loadRegistry } from '../connectors/load-registry.js';

type Values = Record<string, string | boolean | string[] | undefined>;

export function toolCommands(): Record<string, Command> {
  return {
    eval: {
      summary: 'Evaluate one Double Braces expression and print the result as JSON',
      usage: "pipec eval '<expr>' [--message FILE] [--global name=value]...",
      options: {
        message: { type: 'string', short: 'm' },
        global: { type: 'string', short: 'g', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      help: 'The expression may be written with or without the surrounding {{ }}. --message gives the JSON message (`message.…`); each --global sets a global (the value is parsed as JSON when it can be, else taken as a string). Errors print as diagnostics with a caret under the column, and the exit code is 1.',
      async run(values, positionals, output) {
        const [source] = positionals;
        if (source === undefined || positionals.length > 1) return usageError(this, output);
        const message = typeof values['message'] === 'string' ? readJsonFile(values['message'], output) : null;
        if (message === undefined) return 1;
        const globals: Record<string, unknown> = {};
        for (const pair of (values['global'] as string[] | undefined) ?? []) {
          const eq = pair.indexOf('=');
          if (eq <= 0) return usageError(this, output);
          globals[pair.slice(0, eq)] = parseLoose(pair.slice(eq + 1));
        }
        const expression = source.trim().startsWith('{{')
          ? source.trim().replace(/^\{\{/, '').replace(/\}\}$/, '')
          : source;
        const result = evaluateExpression(expression, { message: message as never, globals: globals as never });
        if (result.diagnostics.length > 0) {
          printToolDiagnostics(result.diagnostics, '<eval>', expression, output);
          return 1;
        }
        if (result.error) {
          output.err(`error[${result.error.code}]: ${result.error.message}`);
          return 1;
        }
        output.out(JSON.stringify(result.value ?? null, null, 2));
        return 0;
      },
    },
    jolt: {
      summary: 'Run a JOLT chain (a JSON array of {operation, spec}) over JSON input',
      usage: 'pipec jolt SPEC.json [INPUT.json]   (input from stdin when omitted)',
      options: { help: { type: 'boolean', short: 'h' } },
      help: 'Prints the transformed JSON on stdout. A bad spec or a failing transform prints diagnostics on stderr and exits 1.',
      async run(_values, positionals, output) {
        const [specFile, inputFile] = positionals;
        if (specFile === undefined || positionals.length > 2) return usageError(this, output);
        const spec = readJsonFile(specFile, output);
        const input = inputFile ? readJsonFile(inputFile, output) : readJsonStdin(output);
        if (spec === undefined || input === undefined) return 1;
        // Diagnostics point into the spec file itself (line and column of the offending key).
        const specText = fs.readFileSync(specFile, 'utf8');
        const compiled = compileJoltChain(spec, locateInJson(specFile, specText));
        if (compiled.diagnostics.some((d) => d.severity === 'error')) {
          printToolDiagnostics(compiled.diagnostics, specFile, specText, output);
          return 1;
        }
        const compiledFn = joltToFunction(spec);
        return runTransform(() => compiledFn.fn?.(input, null), output);
      },
    },
    jslt: {
      summary: 'Run a JSLT query over JSON input',
      usage: 'pipec jslt QUERY.jslt [INPUT.json]   (input from stdin when omitted)',
      options: { help: { type: 'boolean', short: 'h' } },
      help: 'Prints the result on stdout. A query that does not compile prints diagnostics with line and column on stderr and exits 1, as does a failing transform.',
      async run(_values, positionals, output) {
        const [queryFile, inputFile] = positionals;
        if (queryFile === undefined || positionals.length > 2) return usageError(this, output);
        let query: string;
        try {
          query = fs.readFileSync(queryFile, 'utf8');
        } catch (err) {
          output.err(`pipec jslt: cannot read ${queryFile}: ${err instanceof Error ? err.message : String(err)}`);
          return 1;
        }
        const input = inputFile ? readJsonFile(inputFile, output) : readJsonStdin(output);
        if (input === undefined) return 1;
        // Imports resolve next to the query file (as the reference resolves from its classpath root).
        const base = path.dirname(path.resolve(queryFile));
        const resolveImport = (p: string): string | undefined => {
          try {
            return fs.readFileSync(path.resolve(base, p), 'utf8');
          } catch {
            return undefined;
          }
        };
        const checked = compileJslt(query, { file: queryFile, mapOffset: (offset) => offset, resolveImport });
        if (checked.diagnostics.some((d) => d.severity === 'error')) {
          printToolDiagnostics(checked.diagnostics, queryFile, query, output);
          return 1;
        }
        const compiled = jsltToFunction(query, { resolveImport });
        return runTransform(() => compiled.fn?.(input), output);
      },
    },
    explain: {
      summary: 'Explain a diagnostic code (e.g. pipec explain PIPE3001)',
      usage: 'pipec explain CODE',
      options: { help: { type: 'boolean', short: 'h' } },
      help: 'Prints the long-form explanation of a diagnostic code, with an example and the fix.',
      async run(_values, positionals, output) {
        const [code] = positionals;
        const wanted = code?.toUpperCase();
        const info = wanted !== undefined && isDiagnosticCode(wanted) ? CODES[wanted] : undefined;
        if (!code || !info) {
          output.err(
            code
              ? `pipec explain: unknown code \`${code}\` (codes are listed in docs/diagnostics.md)`
              : 'usage: pipec explain CODE',
          );
          return 2;
        }
        output.out(`${code.toUpperCase()}: ${info.title} (${info.severity}, ${info.phase})\n\n${info.explain}`);
        return 0;
      },
    },
    schema: {
      summary: 'Print the parameter schemas of every connector and trigger as JSON',
      usage: 'pipec schema [NAME]',
      options: { help: { type: 'boolean', short: 'h' } },
      help: 'Prints `{ connectors: {name: schema}, triggers: {name: schema} }` for editors and other tools, or one entry when NAME is given.',
      async run(_values, positionals, output) {
        const registry = await loadRegistry({ compileParts: false });
        const strip = (s: {
          name: string;
          kind: string;
          summary: string;
          positional?: readonly string[];
          params: unknown;
          output?: unknown;
        }) => ({
          name: s.name,
          kind: s.kind,
          summary: s.summary,
          ...(s.positional ? { positional: s.positional } : {}),
          params: s.params,
          ...(s.output !== undefined ? { output: s.output } : {}),
        });
        const [name] = positionals;
        if (name) {
          const one = registry.connectors.get(name) ?? registry.triggers.get(name);
          if (!one) {
            output.err(`pipec schema: no connector or trigger named \`${name}\``);
            return 2;
          }
          output.out(JSON.stringify(strip(one), null, 2));
          return 0;
        }
        const connectors = Object.fromEntries([...registry.connectors].map(([n, s]) => [n, strip(s)]));
        const triggers = Object.fromEntries([...registry.triggers].map(([n, s]) => [n, strip(s)]));
        output.out(JSON.stringify({ connectors, triggers }, null, 2));
        return 0;
      },
    },
  };
}

function usageError(command: Command, output: Output): number {
  output.err(`usage: ${command.usage}`);
  return 2;
}

function runTransform(fn: () => unknown, output: Output): number {
  try {
    output.out(JSON.stringify(fn() ?? null, null, 2));
    return 0;
  } catch (err) {
    output.err(`error: the transform failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

function readJsonFile(file: string, output: Output): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    output.err(`pipec: cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  return parseJson(text, file, output);
}

function readJsonStdin(output: Output): unknown {
  let text: string;
  try {
    text = fs.readFileSync(0, 'utf8');
  } catch {
    output.err('pipec: no input (give INPUT.json or pipe JSON into stdin)');
    return undefined;
  }
  return parseJson(text, 'the input', output);
}

/** JSON text → value; `undefined` (with a message naming `what`) when it does not parse. */
function parseJson(text: string, what: string, output: Output): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    output.err(`pipec: ${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function printToolDiagnostics(diagnostics: readonly Diagnostic[], file: string, text: string, output: Output): void {
  const sources = new Map<string, SourceFile>();
  for (const d of diagnostics)
    if (!sources.has(d.primary.span.file))
      sources.set(
        d.primary.span.file,
        new SourceFile(
          d.primary.span.file,
          d.primary.span.file === file || d.primary.span.file.startsWith('<') ? text : '',
        ),
      );
  output.err(diagnostics.map((d) => renderDiagnostic(d, (f) => sources.get(f))).join('\n\n'));
}

export type { Values };
