/**
 * The limits of a message where it enters a service or crosses a broker, defined once: the HTTP
 * triggers parse bodies with this depth, `publish` accepts what every broker (the SQLite queue,
 * NATS JetStream) and the dead-letter store keep alike, and an event trigger receives exactly what
 * a publisher may send. A payload outside them is refused at publish time with a 4xx, never
 * accepted on one backend and lost on another.
 */

/** Deepest JSON nesting of a message: HTTP bodies and event payloads. */
export const MAX_MESSAGE_DEPTH = 512;

/**
 * Largest event payload, serialized JSON in UTF-8 bytes: NATS's default `max_payload` (1 MiB) less
 * 64 KiB kept for the event's headers and, when it is dead-lettered, the record of its attempts.
 */
export const MAX_EVENT_PAYLOAD_BYTES = 1024 * 1024 - 64 * 1024;

/** Largest total of an event's header names and values (UTF-8 bytes). */
export const MAX_EVENT_HEADER_BYTES = 16 * 1024;

/** The smallest NATS `max_payload` that carries every event this service accepts, with its dead-letter record. */
export const MIN_BROKER_MAX_PAYLOAD = 1024 * 1024;
