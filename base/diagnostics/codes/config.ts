import type { CodeTable } from '../codes.js';

export const configCodes = {
  PIPE3001: {
    title: 'Unknown parameter',
    severity: 'error',
    phase: 'check',
    explain:
      "A step or trigger was given a parameter its connector does not declare. Parameter names are checked against the connector's schema (`pipec schema` prints them all).\n\nExample: `agent { max-tokens: 1024 }` — the agent parameter is `max-output-tokens`. Fix the spelling or remove the parameter.",
  },
  PIPE3002: {
    title: 'Missing required parameter',
    severity: 'error',
    phase: 'check',
    explain:
      'The connector needs this parameter and the step does not set it.\n\nExample: `rest { method: GET }` has no `url`. Add the parameter; `pipec schema` lists what each connector requires.',
  },
  PIPE3003: {
    title: 'Invalid parameter value',
    severity: 'error',
    phase: 'check',
    explain:
      "The value does not fit the parameter's schema: wrong type, not one of the allowed values, out of range or wrongly shaped.\n\nExample: `rest { method: FETCH }` — allowed methods are GET, POST, PUT, PATCH, DELETE, HEAD and OPTIONS.",
  },
  PIPE3004: {
    title: 'Expression not allowed here',
    severity: 'error',
    phase: 'check',
    explain:
      'This parameter is fixed at build time and does not accept `{{ }}` expressions or `env()`.\n\nExample: `trigger http { path: "{{ message.p }}" }` — a route must be known when the service starts. Use a literal value.',
  },
  PIPE3005: {
    title: 'Too many header arguments',
    severity: 'error',
    phase: 'check',
    explain:
      "Words between a connector's name and its `{` fill the connector's positional parameters, then one optional label. This step has more words than that.\n\nExample: `publish usage extra label { … }`: `publish` takes the event name and a label. Remove the extra word or move it into the block.",
  },
  PIPE3006: {
    title: 'Invalid JSON Schema',
    severity: 'error',
    phase: 'check',
    explain:
      'A schema given to a trigger, a `validate` step, an agent\'s `output-schema` or a `schema` declaration is not a valid JSON Schema for its draft.\n\nExample: `{ type: "strin" }`. Fix the schema; the message names the keyword at fault.',
  },
  PIPE3007: {
    title: 'Invalid pipeline option',
    severity: 'error',
    phase: 'check',
    explain:
      'Pipeline options in parentheses accept `concurrency` (a positive integer, default 10), `queue` (how many executions may wait for a slot, 0 to 100000, default 1000; beyond it a request is answered 503 with Retry-After) and `timeout` (a duration, default 30s).\n\nExample: `pipeline p (concurency: 2) { … }` — the option is `concurrency`.',
  },
  PIPE3008: {
    title: 'Duplicate route',
    severity: 'error',
    phase: 'check',
    explain:
      'Two HTTP-triggered pipelines of one service answer the same method and path, so one of them could never be reached. Change one path or method.',
  },
  PIPE3009: {
    title: 'Invalid account',
    severity: 'error',
    phase: 'check',
    explain:
      'An account declaration has an unknown type or fields that its type does not take. Account types: secret-key, api-key, basic, bearer, private-key, public-key, oauth2, mock, connection (databases, brokers, caches, SMTP), ssh (SFTP).\n\nExample: `account crm: basic { user: "x" }` — a basic account takes `username` and `password`.',
  },
  PIPE3010: {
    title: 'Unknown JSON Schema format',
    severity: 'error',
    phase: 'check',
    explain:
      'A schema names a `format` the validators do not know. JSON Schema lets a validator ignore formats it does not ' +
      'know, so a misspelt format would check nothing; pipec refuses it instead. Known formats (ajv-formats): date, ' +
      'time, date-time, iso-time, iso-date-time, duration, uri, uri-reference, uri-template, url, email, hostname, ' +
      'ipv4, ipv6, regex, uuid, json-pointer, json-pointer-uri-fragment, relative-json-pointer, byte, int32, int64, ' +
      'float, double, password, binary (`password` and `binary` accept any string, as OpenAPI uses them).\n\n' +
      'Example: `email: { type: "string", format: "emial" }`. Fix the spelling, or check the value with a `pattern`.',
  },
  PIPE3011: {
    title: 'Durability turned off',
    severity: 'warning',
    phase: 'check',
    explain:
      'A step turns off a safeguard that keeps data from being lost, and the warning names what can then happen.\n\nExample: `publish order-created { fail-on-error: false }`. By default a `publish` that the broker did not store (broker unreachable, payload refused) fails the execution, so an HTTP caller gets an error and can retry. With `fail-on-error: false` the execution goes on with `{ success: false, … }` instead: unless the pipeline checks `success` itself, the event is lost while the caller is told all went well. Remove the setting, or handle `{ success: false }` right after the step.',
  },
  PIPE3012: {
    title: 'Retry cannot help',
    severity: 'error',
    phase: 'check',
    explain:
      'The step option `retry` runs a failed step again, which only helps when the failure can pass (a timeout, a refused connection, a 503). The connector lists no such failure in its schema (`x-pipe-errors`: a 503, 504, 408, 425 or 429 status; a 500 or 502 is what a failure of its own work or a refusal says): its failures come from the message or the parameters, and the same input fails the same way again.\n\nExample: `jolt { spec: …, retry: 3 }`. Remove `retry`; fix the input, or route the failure with `on-fail`, `try`/`catch` or `choice` on `message.kind`.',
  },
  PIPE3013: {
    title: 'Invalid retry option',
    severity: 'error',
    phase: 'check',
    explain:
      'The step option `retry` is a number of attempts (`retry: 3`) or an object: `attempts` (1 to 20, the first included), `backoff` (the first wait, e.g. `200ms`), `max-delay` (the longest wait), `multiplier` (1 to 10), `budget` (time for all attempts and waits, `0` for none), `on` (the error kinds to retry) and `status` (the statuses to retry). Values must be literal.\n\nExample: `rest { url: "…", retry: { attempts: 5, backoff: 200ms, max-delay: 10s, budget: 30s, on: [TIMEOUT], status: [429, 503] } }`.',
  },
  PIPE3014: {
    title: 'Retried call not idempotent',
    severity: 'warning',
    phase: 'check',
    explain:
      'A retried call may have reached the other side before it failed (the answer was lost, the connection broke after the request was sent), so a retry can do its work twice: two orders, two payments. Calls that are idempotent by nature (GET, PUT, DELETE) are safe; others need a key the server uses to recognise a repeat.\n\nExample: `rest { method: POST, url: "…/payments", retry: 3 }`. Send an idempotency key the server honours (`headers: { "Idempotency-Key": "{{ metadata.execution.key }}" }`, or a business id), or remove `retry`. The warning says how for each connector.',
  },
  PIPE3015: {
    title: 'Parameter does not fit the operation',
    severity: 'error',
    phase: 'check',
    explain:
      'A connector with several operations (`csv parse`, `csv generate`, `xml parse`, …) takes some parameters for one operation only, and some in alternatives of which one is given. Its schema says which, as JSON Schema rules (`if` the operation is …, `then` these parameters are not taken, `oneOf` these); the connector\'s page in docs/connectors/ lists them. The same holds for options that change what else is taken: a trigger\'s `auth` of `type: api-key` takes no `jwks-url`.\n\nExample: `csv generate { rows: {{ message.rows }}, delimiter: ";", file: {{ message.files[0] }} }` — `file` is what `csv parse` reads; `csv generate` writes its output as text, or to the file named by `to-file`. Remove the parameter, or give only one of the alternatives (`csv parse` reads `file` or `text`, not both).',
  },
  PIPE3016: {
    title: 'Retries multiply',
    severity: 'warning',
    phase: 'check',
    explain:
      'The step option `retry` runs the whole step again, and the connector also retries by itself through a parameter of its own (`rest`\'s `retries`). Both together multiply: `retries: 3` with `retry: 4` makes up to 16 calls, with waits of both schedules, which is rarely what was meant and can hammer a failing server.\n\nExample: `rest { url: "…", retries: 3, retry: { attempts: 4 } }`. Keep `retry` (error kinds, status codes, a time budget, a circuit breaker beside it) and remove `retries`.',
  },
  PIPE3020: {
    title: 'Mock answer does not fit',
    severity: 'error',
    phase: 'check',
    explain:
      'An agent\'s `mock` answers stand in for the model when it runs offline (a `mock:` model or a mock account), so each `answer` must be a reply the model could give: with `output-schema`, an object valid against that schema; without one, the reply text (a string). The condition `when` must be a boolean.\n\nExample: `mock: [{ when: {{ message.body.total > 100 }}, answer: { total: "high" } }]` with an output schema whose `total` is a number — write `total: 250`.',
  },
  PIPE3030: {
    title: 'Expression in query text',
    severity: 'error',
    phase: 'check',
    explain:
      'This parameter is text the server parses — the SQL of a `sql` step — and takes values only as bound parameters. ' +
      'A `{{ }}` spliced into it would let a value change the statement (SQL injection) and would defeat the ' +
      "server's prepared statements, so pipec refuses it.\n\n" +
      'Example: `sql { sql: "SELECT * FROM orders WHERE id = {{ message.id }}" }`. Write a placeholder instead and ' +
      'pass the value beside the text: `sql: "SELECT * FROM orders WHERE id = $1", params: [{{ message.id }}]` ' +
      '(`$1`, `$2`, … on PostgreSQL; `?` on MySQL and MariaDB). Table and column names cannot be parameters: ' +
      'write them in the text.',
  },
  PIPE3031: {
    title: 'Account of the wrong type',
    severity: 'error',
    phase: 'check',
    explain:
      'The parameter names an account whose type the connector or trigger cannot use: its schema lists the types it ' +
      'takes (`x-pipe-account-types`).\n\n' +
      'Example: `account db: basic { username: "app", password: env("DB_PASSWORD") }` used as a `sql` step\'s ' +
      '`account` — a database takes a `connection` account: ' +
      '`account db: connection { url: env("DATABASE_URL") }`.',
  },
  PIPE3033: {
    title: 'Unknown query operator',
    severity: 'error',
    phase: 'check',
    explain:
      'An Object Store query takes at its top (and in each item of `$and`, `$or`, `$nor`) field names and the ' +
      "joining operators `$and`, `$or`, `$nor`; in a field's condition the operators `$eq`, `$ne`, `$gt`, `$gte`, " +
      '`$lt`, `$lte`, `$in`, `$nin`, `$exists`, `$size`, `$regex` (with `$options`) and `$not`. Any other `$` key ' +
      'would make the store refuse the request (400 BAD_QUERY), so a written one is reported at build time; values ' +
      'computed at run time are not looked into. The same holds for the `$match` stage of an aggregate.\n\n' +
      'Example: `query: { supplier: { $exist: true } }` — write `$exists`.',
  },
  PIPE3032: {
    title: 'Placeholders and values differ',
    severity: 'error',
    phase: 'check',
    explain:
      'A SQL statement takes as many values as it has placeholders — on PostgreSQL the highest `$n`, on MySQL and ' +
      'MariaDB each `?` (outside strings, quoted names and comments) — and its `params` list gives a different ' +
      'number. The database would refuse the statement at run time; pipec says so when it builds the service.\n\n' +
      'Example: `sql: "INSERT INTO orders (id, total) VALUES ($1, $2)", params: [{{ message.id }}]` — add the ' +
      'total: `params: [{{ message.id }}, {{ message.total }}]`. The check runs when the dialect is known (the ' +
      "step's `dialect`, or an account url written out) or the text uses `$n`.",
  },
} as const satisfies CodeTable;
