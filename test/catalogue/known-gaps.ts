/**
 * Variants of covered categories the checker does not catch yet (`base/variant`): measured and
 * printed, not asserted. The test fails when one of them is caught, so the list only shrinks.
 */
export const KNOWN_GAPS: ReadonlySet<string> = new Set([
  // A shift key or JSLT read the closed input never has: reported as a warning (PIPE5021, PIPE5312),
  // since the spec may be shared with inputs of other shapes; the catalogue counts errors only.
  'catalog-feed/jolt-shift-source-field',
  'catalog-feed/jslt-input-field',
  // An HTTP status is 100–599: integer ranges are not part of the types yet.
  'error-center/status-out-of-range',
]);
