import type { Variant } from '../catalogue.js';

const PRICE_ROUTE = 'when "$.products[?(@.price > 1000 || @.price == 0)]"';
const SHIFT = '"*": { code: "products[&1].code", title: "products[&1].name", price: "products[&1].price" }';

export const variants: Variant[] = [
  // JSONPath
  {
    id: 'filter-or-right-typo',
    category: 'jsonpath',
    find: PRICE_ROUTE,
    replace: 'when "$.products[?(@.price > 1000 || @.prize == 0)]"',
  },
  {
    id: 'filter-or-left-typo',
    category: 'jsonpath',
    find: PRICE_ROUTE,
    replace: 'when "$.products[?(@.cost > 1000 || @.price == 0)]"',
  },
  {
    id: 'filter-assignment',
    category: 'jsonpath',
    find: PRICE_ROUTE,
    replace: 'when "$.products[?(@.price > 1000 || @.price = 0)]"',
  },
  {
    id: 'filter-single-pipe',
    category: 'jsonpath',
    find: PRICE_ROUTE,
    replace: 'when "$.products[?(@.price > 1000 | @.price == 0)]"',
  },
  {
    id: 'filter-field-of-number',
    category: 'jsonpath',
    find: PRICE_ROUTE,
    replace: 'when "$.products[?(@.price.amount > 1000 || @.price == 0)]"',
  },
  { id: 'root-field-typo', category: 'jsonpath', find: 'when "$.products[0]"', replace: 'when "$.product[0]"' },
  {
    id: 'jsonpath-function-malformed',
    category: 'jsonpath',
    find: '"$.products[*].code"',
    replace: '"$.products[*.code"',
  },
  { id: 'jsonpath-function-field', category: 'jsonpath', find: '"$.products[*].code"', replace: '"$.products[*].sku"' },
  {
    id: 'filter-unbalanced-quote',
    category: 'jsonpath',
    find: PRICE_ROUTE,
    replace: 'when "$.products[?(@.code == \'A1)]"',
  },

  // for-each
  {
    id: 'for-each-path-typo',
    category: 'for-each',
    find: 'for-each "$.products[*]"',
    replace: 'for-each "$.product[*]"',
  },
  {
    id: 'for-each-element-field',
    category: 'for-each',
    find: 'query: { code: "{{ message.code }}" }',
    replace: 'query: { code: "{{ message.sku }}" }',
  },
  {
    id: 'for-each-element-not-message',
    category: 'for-each',
    find: 'price: {{ message.price }} }',
    replace: 'price: {{ message.products.price }} }',
  },
  {
    id: 'for-each-path-unclosed',
    category: 'for-each',
    find: 'for-each "$.products[*]"',
    replace: 'for-each "$.products[*"',
  },

  // parameters
  { id: 'jolt-operation-unknown', category: 'parameter', find: 'operation: "shift",', replace: 'operation: "shif",' },
  {
    id: 'jolt-param-typo',
    category: 'parameter',
    find: 'jolt reshaped {\n    spec: [',
    replace: 'jolt reshaped {\n    specs: [',
    line: 'specs: [',
  },
  {
    id: 'transformer-type-enum',
    category: 'parameter',
    find: '{ type: rename, path: "data"',
    replace: '{ type: move, path: "data"',
  },
  { id: 'store-upsert-type', category: 'parameter', find: 'upsert: true,', replace: 'upsert: "true",' },
  { id: 'store-find-limit-range', category: 'parameter', find: 'limit: 100 }', replace: 'limit: -1 }' },
  {
    id: 'jslt-syntax',
    category: 'parameter',
    find: '"codes": [for (.products) .code],',
    replace: '"codes": [for .products .code],',
  },

  // closed shapes
  {
    id: 'validation-output-field',
    category: 'closed-shape',
    // A failure's details join the failure object: open.
    hard: true,
    find: 'violations: {{ message.validation }}',
    replace: 'violations: {{ message.validationErrors }}',
  },
  {
    id: 'find-output-field',
    category: 'closed-shape',
    find: 'count: {{ step.found.rowCount }}',
    replace: 'count: {{ step.found.rows }}',
  },
  {
    id: 'validated-step-field',
    category: 'closed-shape',
    find: 'payload: {{ step.contract }},',
    replace: 'payload: {{ step.contract.items }},',
  },

  // duplicates
  {
    id: 'duplicate-schema-property',
    category: 'duplicate',
    find: 'inStock: { type: "boolean" },',
    replace: 'price: { type: "boolean" },',
  },
  {
    id: 'duplicate-jslt-key',
    category: 'duplicate',
    find: '"codes": [for (.products) .code],',
    replace: '"count": [for (.products) .code],',
  },
  {
    id: 'duplicate-action-key',
    category: 'duplicate',
    find: '{ type: remove, path: "data", keys: ["_oId"] },',
    replace: '{ type: remove, path: "data", keys: ["_oId"], type: rename },',
  },

  // undefined names
  {
    id: 'unknown-step',
    category: 'undefined-name',
    find: 'payload: {{ step.contract }},',
    replace: 'payload: {{ step.contracts }},',
  },
  {
    id: 'unknown-schema',
    category: 'undefined-name',
    find: 'schema: CatalogContract,',
    replace: 'schema: CatalogContrat,',
  },
  {
    id: 'unknown-jolt-function',
    category: 'undefined-name',
    find: '{ operation: "default", spec: { products: [] } },',
    replace: '{ operation: "modify-overwrite-beta", spec: { count: "=sizeOf(@(1,products))" } },',
  },

  // unreachable
  {
    id: 'step-after-respond',
    category: 'unreachable',
    find: '      respond 204\n',
    replace: '      respond 204\n      log { message: "empty feed" }\n',
    line: 'log { message: "empty feed" }',
  },

  // pending: JOLT / JSLT output shapes, 204 with a body, dependent parameters
  {
    id: 'jolt-shift-source-field',
    category: 'transform-output',
    find: SHIFT,
    replace: SHIFT.replace('{ code:', '{ sku:'),
  },
  {
    id: 'jolt-output-read',
    category: 'transform-output',
    find: 'payload: {{ step.contract }},',
    replace: 'payload: {{ step.reshaped.items }},',
  },
  {
    id: 'jslt-output-read',
    category: 'transform-output',
    find: 'accepted: {{ step.summary.count }}',
    replace: 'accepted: {{ step.summary.total }}',
  },
  {
    id: 'jslt-input-field',
    category: 'transform-output',
    find: '"count": size(.products),',
    replace: '"count": size(.product),',
  },
  {
    id: 'respond-204-with-body',
    category: 'never-match',
    find: '      respond 204\n',
    replace: '      respond 204 { accepted: 0 }\n',
    line: 'respond 204 { accepted: 0 }',
  },
  {
    id: 'rename-without-to',
    category: 'dependent-param',
    find: '{ type: rename, path: "data", key: "name", to: "title" },',
    replace: '{ type: rename, path: "data", key: "name" },',
  },
  {
    id: 'contract-unsatisfiable',
    category: 'never-match',
    find: 'price: { type: "number", minimum: 0 },\n          inStock',
    replace: 'price: { type: "number", minimum: 10, maximum: 1 },\n          inStock',
  },
  // hunt (issue 20): reads after a JSON Transformer
  {
    id: 'transformer-output-old-name',
    category: 'transform-output',
    find: 'respond 200 { items: {{ message.data }}, count',
    replace: 'respond 200 { items: {{ message.data }}, first: {{ FIRSTELEMENT(message.data)._oId }}, count',
    hard: true,
  },
  {
    id: 'transformer-output-field-typo',
    category: 'transform-output',
    find: 'respond 200 { items: {{ message.data }}, count',
    replace: 'respond 200 { items: {{ message.items }}, count',
  },
  {
    id: 'transformer-path-typo',
    category: 'transform-output',
    find: '{ type: remove, path: "data", keys: ["_oId"] },',
    replace: '{ type: remove, path: "date", keys: ["_oId"] },',
    hard: true,
  },
  {
    id: 'for-each-jslt-list-element',
    category: 'for-each',
    find: '      respond 200 { accepted: {{ step.summary.count }}',
    replace:
      '      for-each "{{ step.summary.codes }}" { log { message: "accepted {{ message.code }}" } }\n      respond 200 { accepted: {{ step.summary.count }}',
  },
];
