/**
 * Compile-time part of `sftp`: the output shape follows the operation named in the header
 * (`sftp get { … }` outputs a file object, `sftp list { … }` a listing). The operation itself is
 * checked by the schema (an enum), the account by its `x-pipe-ref`.
 */
import type { ConnectorCompiler, PipeType, ShapeKit } from '../../../compiler/connectors/hook-api.js';

export const compile: ConnectorCompiler = {
  step({ extra }, result, api) {
    const operation = extra['operation'];
    if (typeof operation === 'string') result.output = outputOf(operation, api.types);
  },
};

function outputOf(operation: string, t: ShapeKit): PipeType {
  switch (operation) {
    case 'list':
      return t.closed({
        path: t.STRING,
        entries: t.arrayOf(t.closed({ name: t.STRING, type: t.STRING, size: t.INTEGER, modifiedAt: t.STRING })),
      });
    case 'get':
      // The shape of the HTTP File trigger's message.files[] items, plus where it came from.
      return t.closed({
        fileName: t.STRING,
        originalFileName: t.STRING,
        contentType: t.STRING,
        size: t.INTEGER,
        path: t.STRING,
        remotePath: t.STRING,
      });
    case 'put':
      return t.closed({ path: t.STRING, size: t.INTEGER });
    case 'move':
      return t.closed({ from: t.STRING, to: t.STRING });
    case 'delete':
      return t.closed({ path: t.STRING, deleted: t.BOOLEAN });
    default:
      return t.UNKNOWN;
  }
}
