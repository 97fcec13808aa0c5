/**
 * Compile-time part of the `http-file` trigger: the route as for `http` (shared from its folder),
 * the upload limit; the first message is the envelope with `files` (one entry per uploaded file).
 */
import type { TriggerCompiler } from '../../../compiler/connectors/hook-api.js';
import { httpEnvelope, principalShape, routeSpec } from '../http/compile.js';

const MB = 1024 * 1024;

export const compile: TriggerCompiler = {
  trigger(input, api) {
    const t = api.types;
    const uploadedFile = t.closed({
      fileName: t.STRING,
      originalFileName: t.STRING,
      param: t.STRING,
      contentType: t.STRING,
      size: t.INTEGER,
      path: t.STRING,
    });
    return {
      spec: {
        ...routeSpec(input, api),
        maxFileSize: String(api.reader(input.trigger.config).num('max-file-size', 100 * MB)),
      },
      message: httpEnvelope(
        api,
        t.UNKNOWN,
        { files: t.arrayOf(uploadedFile) },
        principalShape(input.trigger.config, api),
      ),
    };
  },
};
