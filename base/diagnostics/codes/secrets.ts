import type { CodeTable } from '../codes.js';

/**
 * Secrets as a type (PIPE42xx, in the range of `{{ }}` types): a value read from an account, or
 * computed from one, may not leave the service unless the author declassifies it by name.
 */
export const secretCodes = {
  PIPE4201: {
    title: 'Secret leaves the service',
    severity: 'error',
    phase: 'check',
    explain:
      'Every value of an account (`{{ account.openai.key }}`, `{{ account.crm.password }}`) is a secret, and so is everything computed from one: the result of a function or an operator over it, a text template that contains it, an object or array that holds it, and a field of the message that a step filled with it (a `json-generator` that writes `token: "{{ account.crm.token }}"` makes `message.token` a secret for every later step). A secret may be given to the parameters that use it to authenticate (a `rest` step\'s `headers`, a `hash` step\'s `value`, any parameter that is not a way out), but it may not reach a place outside the service: a `respond` body or header, a `fail` message or the messages of an `assert` step, a `log` line, a `publish` payload, a document or update of the Object Store (`store`), or the `system` and `user` prompts of an `agent`. The error points at the value that carries the secret and names the account field it comes from.\n\nWhich connector parameters are such a way out is data: `"x-pipe-secret": "sink"` on the parameter in the connector\'s schema.json (`"credential"` documents a parameter made for secrets).\n\nExample: `respond 200 { key: "{{ account.partner.client-id }}" }`. Fix: send what the caller needs without the account\'s value; when the value really is meant to leave (a public client id, a value the caller is entitled to), say so where it leaves: `{{ DECLASSIFY(account.partner.client-id) }}`. DECLASSIFY changes nothing at run time; it is a greppable record of the decision, for review.',
  },
} as const satisfies CodeTable;
