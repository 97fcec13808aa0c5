/**
 * Double Braces against JSONata: the same expressions, written in each language, evaluated over
 * the same order messages in one run. Double Braces are compiled the way the compiler compiles
 * them for generated code (parse, type-check, emit JavaScript over the runtime library); JSONata
 * expressions are compiled once with `jsonata(text)`. Each pair is checked to give equal results
 * on every message before it is timed (CPU time, see support/measure.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import jsonata from 'jsonata';
import { analyze } from '../compiler/braces/analyze.js';
import { Emitter } from '../compiler/braces/emit.js';
import { hasErrors } from '../base/diagnostics/diagnostic.js';
import { UNKNOWN } from '../compiler/types/pipe-type.js';
import * as B from '../runtime/braces/index.js';
import type { Json } from '../runtime/types.js';
import { ORDER_DATA_DIR } from './order-flow.js';
import { cpuThroughput, geometricMean, round, sameJson } from './support/measure.js';

export interface BracesCase {
  readonly name: string;
  readonly braces: string;
  readonly jsonata: string;
}

/** Equivalent expressions; the message is an order (orderId, customer, items[{ sku, qty, unitPrice }]). */
export const BRACES_CASES: readonly BracesCase[] = [
  {
    name: 'string building',
    braces: 'CONCAT(UPPERCASE(message.customer.name), " <", message.customer.email, ">")',
    jsonata: '$uppercase(customer.name) & " <" & customer.email & ">"',
  },
  {
    name: 'condition',
    braces: 'IF(message.items[0].qty > 3, "bulk", "single")',
    jsonata: 'items[0].qty > 3 ? "bulk" : "single"',
  },
  {
    name: 'sum of qty × price',
    braces: 'SUM(MAP(message.items, x => x.qty * x.unitPrice))',
    jsonata: '$sum(items.(qty * unitPrice))',
  },
  {
    name: 'filter and count',
    braces: 'SIZE(FILTER(message.items, x => x.unitPrice > 10))',
    jsonata: '$count(items[unitPrice > 10])',
  },
  {
    name: 'object building',
    braces: '{ id: message.orderId, city: message.customer.address.city, lines: SIZE(message.items) }',
    jsonata: '{ "id": orderId, "city": customer.address.city, "lines": $count(items) }',
  },
];

export interface BracesResult {
  readonly cases: ReadonlyArray<{
    readonly name: string;
    readonly bracesPerSecond: number;
    readonly jsonataPerSecond: number;
    readonly ratio: number;
  }>;
  /** Geometric mean of the per-case ratios (target ≥ 10). */
  readonly ratio: number;
}

type Compiled = (b: typeof B, message: Json, ctx: unknown) => Json;

/** Compiles one Double Braces expression to the JavaScript generated services run. */
export function compileBracesExpression(source: string): (message: Json) => Json {
  const { expr, check, diagnostics } = analyze(source, 0, undefined, {
    file: '<bench>',
    message: UNKNOWN,
    globals: {},
    accounts: {},
    steps: {},
  });
  if (!expr || !check || hasErrors(diagnostics)) {
    throw new Error(`Double Braces expression rejected: ${source}\n${diagnostics.map((d) => d.title).join('\n')}`);
  }
  const js = new Emitter(check.calls).emit(expr);
  // The emitted text holds JSON literals and library calls only (compiler/braces/emit.ts).
  const run = new Function('B', 'message', 'ctx', `"use strict";\nreturn (${js});`) as Compiled;
  const ctx = { globals: {}, accounts: {}, steps: {} };
  return (message) => run(B, message, ctx);
}

/** The order plus variants (other names, quantities and prices), so no result is constant. */
export function orderMessages(): Json[] {
  const order = JSON.parse(readFileSync(path.join(ORDER_DATA_DIR, 'order.json'), 'utf8')) as {
    customer: { name: string };
    items: Array<{ qty: number; unitPrice: number }>;
  };
  return Array.from({ length: 8 }, (_, i) => {
    const copy = structuredClone(order);
    copy.customer.name = `${copy.customer.name} ${i}`;
    copy.items.forEach((item, j) => {
      item.qty = ((item.qty + i + j) % 9) + 1;
      item.unitPrice = round(item.unitPrice * (1 + i / 10), 2);
    });
    return copy as unknown as Json;
  });
}

export async function benchBraces(opts: { seconds: number }): Promise<BracesResult> {
  const messages = orderMessages();
  const cases = [];
  for (const c of BRACES_CASES) {
    const braces = compileBracesExpression(c.braces);
    const expression = jsonata(c.jsonata);
    for (const m of messages) {
      const ours = braces(m);
      const theirs = (await expression.evaluate(m)) as unknown;
      if (!sameJson(ours, theirs))
        throw new Error(`${c.name}: Double Braces gave ${JSON.stringify(ours)}, JSONata ${JSON.stringify(theirs)}`);
    }
    const bracesPerSecond = await cpuThroughput(opts.seconds, messages, (m) => braces(m as Json));
    const jsonataPerSecond = await cpuThroughput(opts.seconds, messages, (m) => expression.evaluate(m));
    cases.push({
      name: c.name,
      bracesPerSecond: round(bracesPerSecond),
      jsonataPerSecond: round(jsonataPerSecond),
      ratio: round(bracesPerSecond / jsonataPerSecond, 1),
    });
  }
  return { cases, ratio: round(geometricMean(cases.map((c) => c.ratio)), 1) };
}
