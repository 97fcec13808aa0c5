import type { Variant } from '../catalogue.js';

const DELAYED = `when "$.legs[?(@.delayMinutes > 60 && @.status != 'delivered')]"`;
const COUNT = '{{ SIZE(step.tracking.body.events) }}';

export const variants: Variant[] = [
  // JSONPath: nested paths, each part of && / ||, `=` for `==`
  {
    id: 'filter-and-left-typo',
    category: 'jsonpath',
    find: DELAYED,
    replace: DELAYED.replace('@.delayMinutes', '@.delay'),
  },
  { id: 'filter-and-right-typo', category: 'jsonpath', find: DELAYED, replace: DELAYED.replace('@.status', '@.state') },
  {
    id: 'filter-or-typo',
    category: 'jsonpath',
    find: DELAYED,
    replace: `when "$.legs[?(@.delayMinutes > 60 || @.carier == 'local')]"`,
  },
  { id: 'filter-assignment', category: 'jsonpath', find: DELAYED, replace: `when "$.legs[?(@.status = 'delayed')]"` },
  {
    id: 'filter-nested-typo',
    category: 'jsonpath',
    find: DELAYED,
    replace: `when "$.customer[?(@.address.countri == 'PT')]"`,
  },
  // A field of an array selects nothing: the elements come first (`[*].status`).
  { id: 'path-field-of-array', category: 'jsonpath', find: DELAYED, replace: `when "$.legs.status"` },
  {
    id: 'for-each-field-of-array',
    category: 'for-each',
    find: '"$.body.events[*]"',
    replace: '"$.body.events.code"',
  },
  {
    id: 'filter-nested-into-string',
    category: 'jsonpath',
    find: DELAYED,
    replace: `when "$.customer[?(@.name.first == 'Ana')]"`,
    hard: true,
  },
  { id: 'root-typo', category: 'jsonpath', find: DELAYED, replace: DELAYED.replace('$.legs', '$.leg') },
  {
    id: 'jsonpath-function-unclosed',
    category: 'jsonpath',
    find: COUNT,
    replace: '{{ SIZE(JSONPATH(step.tracking.body, "$.events[*")) }}',
  },
  {
    id: 'jsonpath-function-field',
    category: 'jsonpath',
    find: COUNT,
    replace: '{{ SIZE(JSONPATH(step.tracking.body, "$.event[*]")) }}',
  },

  // for-each: the path against the message, the elements' type
  { id: 'for-each-path-typo', category: 'for-each', find: '"$.body.events[*]"', replace: '"$.body.event[*]"' },
  { id: 'for-each-path-without-body', category: 'for-each', find: '"$.body.events[*]"', replace: '"$.events[*]"' },
  {
    id: 'for-each-element-typo',
    category: 'for-each',
    find: 'code: "{{ message.code }}"',
    replace: 'code: "{{ message.cod }}"',
  },
  {
    id: 'for-each-element-as-envelope',
    category: 'for-each',
    find: 'at: "{{ message.at }}"',
    replace: 'at: "{{ message.body.at }}"',
  },
  {
    id: 'for-each-output-field',
    category: 'for-each',
    find: 'json-generator { json: {{ step.shipment }} }',
    replace: 'json-generator { json: {{ step.shipment }} }\n  log { message: "{{ step.recorded.inserted }} events" }',
    line: 'step.recorded.inserted',
  },
  {
    id: 'for-each-over-string',
    category: 'for-each',
    hard: true,
    find: '"$.body.events[*]"',
    replace: '"$.body.trackingId[*]"',
  },

  // envelopes after rest (with a response schema) and in the executed pipeline
  {
    id: 'rest-field-without-body',
    category: 'envelope',
    find: '"{{ step.tracking.body.trackingId }}"',
    replace: '"{{ step.tracking.trackingId }}"',
  },
  {
    id: 'rest-body-field-typo',
    category: 'closed-shape',
    find: '"{{ step.tracking.body.trackingId }}"',
    replace: '"{{ step.tracking.body.trackingID }}"',
  },
  {
    id: 'executed-read-without-body',
    category: 'envelope',
    find: 'in {{ message.body.city }}',
    replace: 'in {{ message.city }}',
  },

  // contracts: the execute payload against DelayNotice, reads in the executed pipeline
  {
    id: 'execute-missing-field',
    category: 'contract',
    find: '            city: "{{ step.shipment.customer.address.city }}",\n',
    replace: '',
    // Reported at the object that lacks the field.
    line: '          body: {\n',
  },
  {
    id: 'execute-extra-field',
    category: 'contract',
    find: '            city: "{{ step.shipment.customer.address.city }}",\n',
    replace:
      '            city: "{{ step.shipment.customer.address.city }}",\n            customer: "{{ step.shipment.customer.name }}",\n',
    line: 'customer: "{{ step.shipment.customer.name }}"',
  },
  {
    id: 'execute-object-for-string',
    category: 'contract',
    find: 'city: "{{ step.shipment.customer.address.city }}",',
    replace: 'city: {{ step.shipment.customer.address }},',
  },
  {
    id: 'executed-read-typo',
    category: 'contract',
    find: '({{ message.body.country }})',
    replace: '({{ message.body.countryCode }})',
  },

  // closed shapes
  {
    id: 'nested-field-skipped',
    category: 'closed-shape',
    find: 'city: "{{ step.shipment.customer.address.city }}",',
    replace: 'city: "{{ step.shipment.customer.city }}",',
  },
  {
    id: 'field-case',
    category: 'closed-shape',
    find: 'shipments/{{ step.shipment.shipmentId }}"',
    replace: 'shipments/{{ step.shipment.shipmentID }}"',
  },

  // parameters, names
  { id: 'rest-timeout-name', category: 'parameter', find: 'read-timeout: 5s,', replace: 'timeout: 5s,' },
  {
    id: 'unknown-response-schema',
    category: 'undefined-name',
    find: 'response-schema: TrackingResponse,',
    replace: 'response-schema: TrackingResponses,',
  },

  // unreachable
  {
    id: 'step-after-respond',
    category: 'unreachable',
    find: 'delayed: true, events: {{ SIZE(step.tracking.body.events) }} }\n',
    replace:
      'delayed: true, events: {{ SIZE(step.tracking.body.events) }} }\n      log { message: "delay notified" }\n',
    line: 'log { message: "delay notified" }',
  },

  // hunt (issue 20)
  {
    id: 'rest-headers-singular',
    category: 'envelope',
    find: 'tracking: "{{ step.tracking.body.trackingId }}"',
    replace: 'tracking: "{{ step.tracking.header.etag }}"',
  },
  {
    id: 'rest-status-code-name',
    category: 'envelope',
    find: 'tracking: "{{ step.tracking.body.trackingId }}"',
    replace: 'tracking: "{{ step.tracking.statusCode }}"',
  },
  {
    id: 'execute-country-from-events',
    category: 'contract',
    find: 'country: "{{ step.shipment.customer.address.country }}",',
    replace: 'country: {{ step.tracking.body.events }},',
  },
  {
    id: 'for-each-event-location-city',
    category: 'for-each',
    find: 'at: "{{ message.at }}" },',
    replace: 'at: "{{ message.at }}", city: "{{ message.location.city }}" },',
  },
  {
    id: 'for-each-over-tracking-id',
    category: 'for-each',
    find: 'for-each recorded "$.body.events[*]"',
    replace: 'for-each recorded "{{ message.body.trackingId }}"',
  },
  {
    id: 'delay-filter-status-enum-like',
    category: 'jsonpath',
    find: "@.status != 'delivered'",
    replace: "@.state != 'delivered'",
  },
  // hard: Double Braces values that can never do what they say
  {
    id: 'stray-brace-in-url',
    category: 'double-braces',
    hard: true,
    find: 'url: "https://tracking.example.com/shipments/{{ step.shipment.shipmentId }}",',
    replace: 'url: "https://tracking.example.com/shipments/{{ step.shipment.shipmentId }}}",',
  },
  {
    id: 'address-compared-to-text',
    category: 'double-braces',
    hard: true,
    find: 'city: "{{ step.shipment.customer.address.city }}",',
    replace:
      "city: \"{{ IF(step.shipment.customer.address == '', 'unknown', step.shipment.customer.address.city) }}\",",
  },
  {
    id: 'size-of-a-number',
    category: 'double-braces',
    hard: true,
    find: 'events: {{ SIZE(step.tracking.body.events) }}',
    replace: 'events: {{ SIZE(step.tracking.status) }}',
  },
];
