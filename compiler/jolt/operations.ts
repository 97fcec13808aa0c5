/**
 * The names of JOLT operations a chain may use (short names and the Java class names of the
 * reference implementation), and the mode of each modify operation: shared by the compiler
 * (index.ts) and the shape inference (infer-shape.ts).
 */
import type { ModifyMode } from './modify.js';

export const OPERATIONS: Readonly<Record<string, string>> = {
  shift: 'shift',
  default: 'default',
  remove: 'remove',
  sort: 'sort',
  cardinality: 'cardinality',
  'modify-overwrite-beta': 'modify-overwrite-beta',
  'modify-default-beta': 'modify-default-beta',
  'modify-define-beta': 'modify-define-beta',
  'com.bazaarvoice.jolt.Shiftr': 'shift',
  'com.bazaarvoice.jolt.Defaultr': 'default',
  'com.bazaarvoice.jolt.Removr': 'remove',
  'com.bazaarvoice.jolt.Sortr': 'sort',
  'com.bazaarvoice.jolt.CardinalityTransform': 'cardinality',
  'com.bazaarvoice.jolt.Modifier$Overwritr': 'modify-overwrite-beta',
  'com.bazaarvoice.jolt.Modifier$Defaultr': 'modify-default-beta',
  'com.bazaarvoice.jolt.Modifier$Definr': 'modify-define-beta',
};

export const MODIFY_MODES: Readonly<Record<string, ModifyMode>> = {
  'modify-overwrite-beta': 0,
  'modify-default-beta': 1,
  'modify-define-beta': 2,
};
