import type { CodeTable } from '../codes.js';

/**
 * Contracts between pipelines (PIPE61xx, in the control-flow range): what one pipeline hands to
 * another through `execute` and `publish`, against the receiving trigger's declared shape.
 */
export const contractCodes = {
  PIPE6101: {
    title: "Payload breaks executed pipeline's contract",
    severity: 'error',
    phase: 'check',
    explain:
      'An `execute` step starts another pipeline with its `payload` (or, without one, the current message) as that pipeline\'s first message, and the called pipeline is checked against its own trigger: an `http` trigger expects the request envelope, so the payload must carry the request under `body`; a `body: Schema` on the trigger types that body. A payload that lacks a required field, has a field a closed schema does not allow, or a value of the wrong type breaks the called pipeline at run time.\n\nExample: `execute create-order { payload: { sku: "A1" } }` for `pipeline create-order { trigger http { method: POST, path: "/orders", body: Order } … }` — write `payload: { body: { sku: "A1", quantity: 1 } }`.',
  },
  PIPE6102: {
    title: "Payload breaks subscriber's contract",
    severity: 'error',
    phase: 'check',
    explain:
      "A `publish NAME` step sends its `payload` (or, without one, the current message) to every pipeline of the service with `trigger event { name: NAME, body: Schema }`, which rejects an invalid payload to the dead letters without running. A payload that lacks a required field, has a field a closed schema does not allow, or a value of the wrong type is such an event.\n\nExample: `publish order-created { payload: { id: {{ message.body.id }} } }` when the subscriber's schema requires `orderId` — write `payload: { orderId: {{ message.body.id }} }`.",
  },
  PIPE6103: {
    title: 'Event published but never consumed',
    severity: 'warning',
    phase: 'check',
    explain:
      'No pipeline of this build subscribes to the event a `publish` step sends (`trigger event { name: … }`), so the data goes nowhere — often a typo in the event name. When a subscriber lives in another service (the event crosses a service boundary), say so on the step: `publish order-created { payload: …, external: true }`.',
  },
  PIPE6104: {
    title: 'Event consumed but never published',
    severity: 'warning',
    phase: 'check',
    explain:
      'A pipeline subscribes to an event (`trigger event { name: … }`) that no `publish` step of this build sends, so it never runs — often a typo in the event name. When the event comes from another service (it crosses a service boundary), say so on the trigger: `trigger event { name: "order-created", external: true }`. A `publish` whose event name is an expression may send any event, so it silences this warning for the whole build.',
  },
  PIPE6105: {
    title: 'Misspelt event name',
    severity: 'error',
    phase: 'check',
    explain:
      'A `publish` step sends an event no pipeline of this build subscribes to, and a pipeline subscribes to an event no step publishes, and the two names differ by one or two characters: one of them is misspelt, so the event goes nowhere and the subscriber never runs. Both places are reported, since either name may be the wrong one.\n\nExample: `publish order-acepted { … }` and `trigger event { name: "order-accepted" }` — write the same name in both. When the names really are different events that cross a service boundary, declare them so with `external: true` on the step and on the trigger.',
  },
  PIPE6106: {
    title: 'Field no sender sends',
    severity: 'error',
    phase: 'check',
    explain:
      'Within one build, a pipeline started by `trigger event { name: NAME }` receives what the build\'s `publish NAME` steps send, and a pipeline run by `execute` what its callers send. When every sender is known — the event is not declared `external: true` on the trigger or on any publisher, no `publish` computes its event name, and every sender is a step of a pipeline whose payload has a known, closed shape — the message holds the fields the trigger\'s `body` schema declares and those the senders send, and no other. Reading any other field reads nothing: usually a misspelt field, or one the senders call by another name. A pipeline with an `http` trigger (or any trigger reached from outside the build) is not narrowed, and a read whose absence the expression handles (`{{ message.cost ?? 0 }}`, the arguments of `ISNULL` and `DEFAULT`) is not reported: it works whoever sends the event.\n\nExample: `publish order-failed { payload: { orderId: …, summary: … } }` and, in the subscriber, `{{ message.message }}` — write `{{ message.summary }}`. When the event also comes from another service, declare it so on the trigger: `trigger event { name: "order-failed", external: true }`.',
  },
} as const satisfies CodeTable;
