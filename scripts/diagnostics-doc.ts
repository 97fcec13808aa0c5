/** Renders docs/diagnostics.md from the code catalogue (the catalogue is the single source). */
import { CODES, type DiagnosticCode } from '../base/diagnostics/codes.js';

export function renderDiagnosticsDoc(): string {
  const lines = [
    '# Diagnostic codes',
    '',
    'Generated from `base/diagnostics/codes.ts` by `npm run docs:codes` — do not edit by hand.',
    '`pipec explain CODE` prints the same text in the terminal.',
    '',
    '| range | phase |',
    '|---|---|',
    '| PIPE1xxx | syntax: lexer, parser, `{{ }}` syntax |',
    '| PIPE2xxx | names: connectors, triggers, pipelines, schemas, accounts, stores, globals, labels, branches, imports |',
    '| PIPE3xxx | configuration of connectors and triggers against their schemas |',
    '| PIPE4xxx | Double Braces types, functions and message shapes |',
    '| PIPE5xxx | JOLT (5001–5299), JSLT (5300–5499), JSONPath / cron / regex (5500–5599) |',
    '| PIPE6xxx | control flow: reachability, choice, loops, self-execution |',
    '| PIPE7xxx | tests written in the language (`test`, `mock`, `expect`) |',
    '| PIPE9xxx | internal errors and unreadable inputs |',
    '',
  ];
  for (const code of (Object.keys(CODES) as DiagnosticCode[]).sort()) {
    const info = CODES[code];
    if (!info) continue;
    lines.push(`## ${code} — ${info.title}`, '', `*${info.severity}, phase ${info.phase}*`, '', info.explain, '');
  }
  return lines.join('\n');
}
