import type { Variant } from '../catalogue.js';

const AUTH = 'auth: { type: bearer, account: partner-verifier, issuer: "partner-tokens", audience: "partner-api" },';

export const variants: Variant[] = [
  // parameters
  { id: 'rate-limit-key-enum', category: 'parameter', find: 'key: ip }', replace: 'key: address }' },
  {
    id: 'rate-limit-max-zero',
    category: 'parameter',
    find: 'rate-limit: { max: 60,',
    replace: 'rate-limit: { max: 0,',
  },
  {
    id: 'assert-status-range',
    category: 'parameter',
    find: 'status: 401,\n    error-message',
    replace: 'status: 4001,\n    error-message',
  },
  {
    id: 'assert-param-typo',
    category: 'parameter',
    find: 'assert { condition: {{ step.secret.valid }}',
    replace: 'assert { condtion: {{ step.secret.valid }}',
  },
  { id: 'hash-operation-enum', category: 'parameter', find: 'hash verify secret {', replace: 'hash check secret {' },
  { id: 'jwt-operation-enum', category: 'parameter', find: 'jwt sign access {', replace: 'jwt issue access {' },
  {
    id: 'jwt-algorithm-enum',
    category: 'parameter',
    find: '    account: partner-signer,\n',
    replace: '    account: partner-signer,\n    algorithm: ES257,\n',
    line: 'algorithm: ES257,',
  },
  {
    id: 'jwt-expires-type',
    category: 'parameter',
    find: 'expires-in: {{ global.token-ttl }},',
    replace: 'expires-in: "one hour",',
  },
  {
    id: 'account-type-unknown',
    category: 'parameter',
    find: 'account partner-signer: private-key',
    replace: 'account partner-signer: privat-key',
  },
  {
    id: 'account-alg-enum',
    category: 'parameter',
    find: 'env("PARTNER_SIGNING_KEY", ""), alg: "ES256"',
    replace: 'env("PARTNER_SIGNING_KEY", ""), alg: "ES257"',
  },
  { id: 'auth-type-enum', category: 'parameter', find: AUTH, replace: AUTH.replace('type: bearer', 'type: jwt') },
  { id: 'auth-param-typo', category: 'parameter', find: AUTH, replace: AUTH.replace('audience:', 'audiences:') },
  {
    id: 'jwt-claims-type',
    category: 'parameter',
    find: 'claims: { scope: "{{ FIRSTELEMENT(step.client.data).scope }}" },',
    replace: 'claims: "scope={{ FIRSTELEMENT(step.client.data).scope }}",',
  },

  // undefined names
  {
    id: 'unknown-account',
    category: 'undefined-name',
    find: '    account: partner-signer,\n',
    replace: '    account: partner-signing,\n',
    line: 'account: partner-signing,',
  },
  {
    id: 'unknown-verifier-account',
    category: 'undefined-name',
    find: AUTH,
    replace: AUTH.replace('account: partner-verifier', 'account: partner-verify'),
  },
  {
    id: 'unknown-step',
    category: 'undefined-name',
    find: '"{{ step.access.token }}"',
    replace: '"{{ step.acess.token }}"',
  },
  {
    id: 'unknown-global',
    category: 'undefined-name',
    find: 'expires-in: {{ global.token-ttl }},',
    replace: 'expires-in: {{ global.token_ttl }},',
  },
  { id: 'unknown-schema', category: 'undefined-name', find: 'body: TokenRequest,', replace: 'body: TokenRequests,' },

  // closed shapes
  {
    id: 'hash-verify-output',
    category: 'closed-shape',
    find: '{{ step.secret.valid }}',
    replace: '{{ step.secret.verified }}',
  },
  {
    id: 'jwt-sign-output',
    category: 'closed-shape',
    find: '"{{ step.access.token }}"',
    replace: '"{{ step.access.jwt }}"',
  },
  {
    id: 'find-output',
    category: 'closed-shape',
    find: '{{ step.client.rowCount == 1 }}',
    replace: '{{ step.client.total == 1 }}',
  },
  {
    id: 'body-schema-field',
    category: 'closed-shape',
    find: 'clientId: "{{ step.request.client_id }}"',
    replace: 'clientId: "{{ step.request.clientId }}"',
  },
  {
    id: 'principal-field',
    category: 'closed-shape',
    // The principal's fields follow the auth type (bearer: scheme, subject, scopes, claims).
    find: 'read by {{ message.principal.subject }}',
    replace: 'read by {{ message.principal.sub }}',
  },

  // envelopes
  {
    id: 'path-params-name',
    category: 'envelope',
    find: 'log { message: "order {{ message.queryAndPath.orderId }}',
    replace: 'log { message: "order {{ message.params.orderId }}',
  },
  {
    id: 'hash-output-not-body',
    category: 'envelope',
    find: '{{ step.secret.valid }}',
    replace: '{{ step.secret.body.valid }}',
  },

  // duplicates
  {
    id: 'duplicate-global',
    category: 'duplicate',
    find: 'global token-audience = "partner-api"',
    replace: 'global token-issuer = "partner-api"',
  },
  {
    id: 'duplicate-header',
    category: 'duplicate',
    find: 'headers { "cache-control": "no-store" }',
    replace: 'headers { "cache-control": "no-store", "cache-control": "private" }',
  },
  { id: 'duplicate-object-key', category: 'duplicate', find: 'key: ip }', replace: 'key: ip, max: 100 }' },

  // durations and sizes
  { id: 'window-unit', category: 'duration', find: 'window: 1m,', replace: 'window: 1min,' },
  { id: 'size-unit', category: 'duration', find: 'max-body-size: 16KB,', replace: 'max-body-size: 16KO,' },

  // unreachable
  {
    id: 'step-after-respond',
    category: 'unreachable',
    find: '  } headers { "cache-control": "no-store" }\n}',
    replace: '  } headers { "cache-control": "no-store" }\n  log { message: "token issued" }\n}',
    line: 'log { message: "token issued" }',
  },

  // Double Braces
  {
    id: 'triple-equals',
    category: 'double-braces',
    find: '{{ step.client.rowCount == 1 }}',
    replace: '{{ step.client.rowCount === 1 }}',
  },
  {
    id: 'missing-dot',
    category: 'double-braces',
    find: 'FIRSTELEMENT(step.client.data).secretHash',
    replace: 'FIRSTELEMENT(step.client.data)secretHash',
  },

  // pending: dependent parameters, secrets
  {
    id: 'bearer-without-key',
    category: 'dependent-param',
    find: AUTH,
    replace: 'auth: { type: bearer, issuer: "partner-tokens", audience: "partner-api" },',
  },
  {
    id: 'verify-without-value',
    category: 'dependent-param',
    find: 'hash verify secret { value: "{{ step.request.client_secret }}", hash:',
    replace: 'hash verify secret { hash:',
  },
  {
    id: 'sign-without-account',
    category: 'dependent-param',
    find: 'jwt sign access {\n    account: partner-signer,\n',
    replace: 'jwt sign access {\n',
    line: 'jwt sign access {',
  },
  {
    id: 'key-in-log',
    category: 'secret',
    find: 'log { message: "order {{ message.queryAndPath.orderId }} read by',
    replace: 'log { message: "key {{ account.partner-signer.key }}: order {{ message.queryAndPath.orderId }} read by',
  },
  {
    id: 'client-secret-in-response',
    category: 'secret',
    find: '    token_type: "Bearer",\n',
    replace: '    token_type: "Bearer",\n    signing_key: "{{ account.partner-signer.key }}",\n',
    line: 'signing_key:',
  },

  // hard: Double Braces values that can never do what they say
  {
    id: 'size-compared-to-text',
    category: 'double-braces',
    hard: true,
    find: 'condition: {{ step.client.rowCount == 1 }},',
    replace: 'condition: {{ SIZE(step.client.data) == "1" }},',
  },
  {
    id: 'object-as-assert-condition',
    category: 'double-braces',
    hard: true,
    find: 'condition: {{ step.client.rowCount == 1 }},',
    replace: 'condition: {{ FIRSTELEMENT(step.client.data) && step.client.rowCount == 1 }},',
  },
  {
    id: 'signing-key-in-claims',
    category: 'secret',
    // A token's claims are readable by whoever holds it; account fields such as a client id may
    // belong there, so only a deeper analysis of which field is a credential can be sure.
    hard: true,
    find: 'claims: { scope: "{{ FIRSTELEMENT(step.client.data).scope }}" },',
    replace:
      'claims: { scope: "{{ FIRSTELEMENT(step.client.data).scope }}", key: "{{ account.partner-signer.key }}" },',
  },
];
