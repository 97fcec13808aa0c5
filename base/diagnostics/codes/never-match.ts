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
      'A JSON Schema whose own keywords contradict each other rejects every document, so the step or trigger using it fails on every message: a `required` property that `additionalProperties: false` forbids (it is neither in `properties` nor matched by a `patternProperties` pattern), `minimum` above `maximum` (or an exclusive bound that leaves no number between them), `minLength` above `maxLength`, `minItems` above `maxItems`, `minProperties` above `maxProperties`, an empty `enum`, a `const` (or every `enum` value) of another type than the schema\'s `type`, or `allOf` parts whose `type`s share no type.\n\nExample: `schema Order { type: "object", additionalProperties: false, required: ["id"], properties: { orderId: { type: "string" } } }` — list `id` under `properties` (or require `orderId`).',
  },
  PIPE3051: {
    title: 'Unknown JSON Schema keyword',
    severity: 'warning',
    phase: 'check',
    explain:
      'A JSON Schema ignores keywords it does not know, so a misspelled keyword (`requried`, `propertes`, `additionalProperty`, `maxlength`) constrains nothing: the schema accepts documents its author meant to reject. pipec warns when an unknown keyword is close to a keyword of the schema\'s draft. Keywords of your own that are not near a draft keyword (`x-…`, `example`, `title`-like annotations of a tool) are left alone.\n\nExample: `{ type: "object", requried: ["id"] }` — write `required: ["id"]`.',
  },
  PIPE4050: {
    title: 'Literal outside the enum',
    severity: 'error',
    phase: 'check',
    explain:
      'The field is compared with a string its shape can never hold: its schema lists the values it may take (`enum`, or `const`), and the literal is none of them, so `==` is always false and `!=` always true — most often a typo of one of the values. Checked in Double Braces (`==`, `!=`, `EQUALTO`) and in JSONPath filters (`[?(@.status == \'…\')]`), wherever the field\'s shape is a closed list of strings; a field that may hold any string (an open `enum` written with `anyOf`, a value of unknown shape) is never reported.\n\nExample: `when {{ message.body.status == "shiped" }}` where the body schema says `status: { enum: ["pending", "shipped"] }` — write `"shipped"`.',
  },
  PIPE5550: {
    title: 'Unknown time zone',
    severity: 'error',
    phase: 'check',
    explain:
      'The time zone written is not one the run time knows, so every date function or schedule using it fails. pipec accepts what the run time accepts: an IANA zone name (`America/Sao_Paulo`, `Europe/Berlin`), `UTC` / `GMT` / `Z`, and fixed offsets (`GMT-3`, `UTC+05:30`, `-03:00`). Checked for the zone arguments of the Double Braces date functions and for every connector or trigger parameter whose schema says `"format": "timezone"` (the scheduler\'s `timezone`).\n\nExample: `timezone: "America/Sao_Paolo"` — write `"America/Sao_Paulo"`.',
  },
} as const satisfies CodeTable;
