import type { CodeTable } from '../codes.js';

/**
 * Values that can never match (issue 20): a literal outside the values its field may hold, a schema
 * no document satisfies, a time zone the run time does not know, an HTTP answer that cannot be
 * sent as written. Each code keeps its area's range (3xxx configuration, 4xxx message shapes,
 * 5xxx patterns); they live together because one rule of thumb unites them: something written
 * in the .pipe file that no run can ever make true.
 */
export const neverMatchCodes = {
  PIPE3050: {
    title: 'Schema no document satisfies',
    severity: 'error',
    phase: 'check',
    explain:
      'A JSON Schema whose own keywords contradict each other rejects every document, so the step or trigger using it fails on every message: a `required` property that `additionalProperties: false` forbids (it is neither in `properties` nor matched by a `patternProperties` pattern), `minimum` above `maximum` (or bounds that leave no number between them — no whole number for `type: "integer"`), `minLength` above `maxLength`, `minItems` above `maxItems`, `minProperties` above `maxProperties`, an empty `enum`, a `const` (or every `enum` value) of another type than the schema\'s `type`, or `allOf` parts whose `type`s share no type.\n\nExample: `schema Order { type: "object", additionalProperties: false, required: ["id"], properties: { orderId: { type: "string" } } }` — list `id` under `properties` (or require `orderId`).',
  },
  PIPE3051: {
    title: 'Unknown JSON Schema keyword',
    severity: 'warning',
    phase: 'check',
    explain:
      'A JSON Schema ignores keywords it does not know, so a misspelled keyword (`requried`, `propertes`, `additionalProperty`, `maxlength`) constrains nothing: the schema accepts documents its author meant to reject. pipec warns when an unknown key is close to a keyword that validates (of any draft from 4 to 2020-12). Keys of your own that are near none (`x-…`, `errorMessage` of a tool) and misspelled annotations (`descripton`: nothing is lost) are left alone.\n\nExample: `{ type: "object", requried: ["id"] }` — write `required: ["id"]`.',
  },
  PIPE3052: {
    title: 'Response HTTP cannot deliver',
    severity: 'error',
    phase: 'check',
    explain:
      'HTTP forbids a body on some answers: 1xx (informational), 204 No Content, 205 Reset Content and 304 Not Modified. A `respond` with such a status and a body cannot be sent as written: the service drops the body, so the client never sees it. And a `respond` ends the execution with its final answer, which an informational status (1xx) is not: the service answers 500 instead. Remove the body, or answer with a status that carries one (`200`). An empty body (`{}`, `null`, `""`) is not reported: nothing is lost.\n\nExample: `respond 204 { deleted: true }` — write `respond 204` or `respond 200 { deleted: true }`.',
  },
  PIPE3053: {
    title: 'Redirect without Location',
    severity: 'warning',
    phase: 'check',
    explain:
      'A redirect (301, 302, 303, 307, 308) tells the client to go to the URL of its `Location` header; without one the client has nowhere to go and shows the answer as it is. Give the header: `respond 303 {} headers { Location: "/orders/{{ message.body.id }}" }`. (300 Multiple Choices and 304 Not Modified need no `Location`.)',
  },
  PIPE4050: {
    title: 'Literal the field never equals',
    severity: 'error',
    phase: 'check',
    explain:
      'The field is compared with a literal it can never hold, so `==` is always false and `!=` always true. Either its schema lists the strings it may take (`enum`, or `const`) and the literal is none of them — most often a typo of one of the values — or the literal is of another type than every value the field (or the result of a function such as `SIZE(…)` or `TOSTRING(…)`) may hold: Double Braces compare strictly (`==`, `!=` and `EQUALTO` are deep equality), so the text `"200"` never equals the number `200`. Checked in Double Braces and, for enums, in JSONPath filters (`[?(@.status == \'…\')]`, whose `==` is JavaScript\'s loose one, so only strings are compared there). A field that may hold any string (an open `enum` written with `anyOf`), several types, or a value of unknown shape is never reported; nor is another spelling of a value the same field is also compared with in the expression and may hold (`status == "paid" || status == "PAID"`, `priority == 1 || priority == "1"`): a defensive alternative, not a typo.\n\nExample: `when {{ message.body.status == "shiped" }}` where the body schema says `status: { enum: ["pending", "shipped"] }` — write `"shipped"`; `when {{ message.status == "200" }}` after `rest` — write `200`.',
  },
  PIPE5550: {
    title: 'Unknown time zone',
    severity: 'error',
    phase: 'check',
    explain:
      'The time zone written is not one the run time knows, so every date function or schedule using it fails. pipec accepts exactly what the run time accepts where the zone is used: an IANA zone name (`America/Sao_Paulo`, `Europe/Berlin`, `Etc/GMT+3`) everywhere, and in Double Braces also `Z` and fixed offsets (`GMT-3`, `UTC+05:30`, `-03:00`); the scheduler reads zones as croner does, by their IANA names. Checked for the zone arguments of the Double Braces date functions, the zone of JSLT\'s `format-time` (which takes IANA names, `UTC` and `GMT` only), and every connector or trigger parameter whose schema says `"format": "timezone"` (the scheduler\'s `timezone`).\n\nExample: `timezone: "America/Sao_Paolo"` — write `"America/Sao_Paulo"`.',
  },
} as const satisfies CodeTable;
