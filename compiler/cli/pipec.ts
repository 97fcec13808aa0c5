/**
 * The `pipec` command line: argv → command → exit code (0 ok, 1 errors found, 2 usage).
 * The only layer of the compiler that touches the process; commands live beside it.
 */
// Modules that `check` never needs (build, run, the bundler, child processes) are imported inside
// their commands, so every `pipec check` does not pay for loading them.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { packageRoot } from '../package-root.js';
import { hasErrors } from '../../base/diagnostics/diagnostic.js';
import { compileFiles, printDiagnostics, processOutput, type Output } from './compile-files.js';
import { toolCommands } from './tool-commands.js';
import { dxCommands } from './dx-commands.js';
import { testCommand } from './test-command.js';
import { deadLettersCommand } from './dead-letters-command.js';

interface Command {
  readonly summary: string;
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  readonly help: string;
  run(
    values: Record<string, string | boolean | string[] | undefined>,
    positionals: string[],
    output: Output,
  ): Promise<number>;
}

const COMMON = {
  root: { type: 'string' },
  format: { type: 'string', default: 'text' },
  color: { type: 'string', default: 'auto' },
  help: { type: 'boolean', short: 'h' },
} as const;

function wantsColor(value: unknown): boolean {
  if (value === 'always') return true;
  if (value === 'never') return false;
  return Boolean(process.stderr.isTTY) && !process.env['NO_COLOR'];
}

const ROOT_HELP =
  'Imports resolve only inside the project: the folders given (or the folder of each file given), ' +
  'or the one folder named with --root DIR.';

function rootOption(values: Record<string, unknown>): { root?: string } {
  return typeof values['root'] === 'string' ? { root: values['root'] } : {};
}

function formatOf(value: unknown): 'text' | 'json' | undefined {
  return value === 'json' ? 'json' : value === 'text' || value === undefined ? 'text' : undefined;
}

const COMMANDS: Record<string, Command> = {
  check: {
    summary: 'Report every error in .pipe files without generating anything',
    usage: 'pipec check <files|dirs>... [--root DIR] [--format text|json] [--color auto|always|never]',
    options: COMMON,
    help: [
      'Parses, resolves and type-checks the files as one service and prints every diagnostic.',
      ROOT_HELP,
      'Exit code: 0 when there are no errors (warnings allowed), 1 when there are errors, 2 on bad usage.',
    ].join('\n'),
    async run(values, positionals, output) {
      const format = formatOf(values['format']);
      if (!format || positionals.length === 0) return usage(this, output);
      const result = await compileFiles({ inputs: positionals, emit: false, ...rootOption(values) });
      printDiagnostics(result, format, output, wantsColor(values['color']));
      if (format === 'text' && result.diagnostics.length === 0)
        output.err(`No problems found in ${result.inputFiles.length} file(s).`);
      return hasErrors(result.diagnostics) ? 1 : 0;
    },
  },
  build: {
    summary: 'Compile .pipe files into a standalone service',
    usage:
      'pipec build <files|dirs>... [--out DIR] [--name NAME] [--root DIR] [--no-bundle] [--container] [--format text|json]',
    options: {
      ...COMMON,
      out: { type: 'string', short: 'o' },
      name: { type: 'string' },
      'no-bundle': { type: 'boolean' },
      container: { type: 'boolean' },
    },
    help: "Writes DIR (default out/<name>): server.js, service.js, pipelines/*.{ts,js}, validators/, the runtime, a package.json naming only the packages these pipelines load, a package-lock.json pinning the versions of pipec's own lockfile, node_modules/ with exactly those packages (when DIR does not already see installed ones), and bundle/: the same code as one file with a V8 code cache, which server.js starts from (a faster cold start; --no-bundle leaves it out, PIPEC_BUNDLE=0 ignores it).\nStart it with `node DIR/server.js` (env PORT, default 8080). To move it to another machine, copy DIR (without node_modules/) and run `npm ci --omit=dev` there; build with the Node.js version you deploy on, or the code cache is ignored.\n--container also writes a Dockerfile and .dockerignore: two stages (npm ci --omit=dev from the lockfile; the service with its code cache made in the image), the unprivileged node user, a /data volume for the embedded backends, a HEALTHCHECK on /ready (docs/deploy.md).",
    async run(values, positionals, output) {
      const format = formatOf(values['format']);
      if (!format || positionals.length === 0) return usage(this, output);
      const { build } = await import('./build-command.js');
      const result = await build(
        {
          inputs: positionals,
          ...(typeof values['out'] === 'string' ? { out: values['out'] } : {}),
          ...(typeof values['name'] === 'string' ? { name: values['name'] } : {}),
          format,
          color: wantsColor(values['color']),
          bundle: values['no-bundle'] !== true,
          container: values['container'] === true,
          ...rootOption(values),
        },
        output,
      );
      return result.ok ? 0 : 1;
    },
  },
  openapi: {
    summary: 'Print the OpenAPI 3.1 document of the HTTP routes',
    usage: 'pipec openapi <files|dirs>... [--out FILE] [--name NAME] [--root DIR]',
    options: { ...COMMON, out: { type: 'string', short: 'o' }, name: { type: 'string' } },
    help: "Prints (or writes to FILE) the OpenAPI 3.1 document of the pipelines' HTTP routes: paths, methods, path and query parameters, body schemas, auth schemes, and the answers each pipeline can give (its respond and fail steps, the trigger's failures, the error object). A built service serves the same document at GET /openapi.json.",
    async run(values, positionals, output) {
      if (positionals.length === 0) return usage(this, output);
      const { defaultServiceName } = await import('./build-command.js');
      const name = typeof values['name'] === 'string' ? values['name'] : defaultServiceName(positionals);
      const result = await compileFiles({
        inputs: positionals,
        emit: false,
        openapi: true,
        serviceName: name,
        ...rootOption(values),
      });
      if (hasErrors(result.diagnostics) || !result.openapi) {
        printDiagnostics(result, 'text', output, wantsColor(values['color']));
        return 1;
      }
      const text = `${JSON.stringify(result.openapi, null, 2)}\n`;
      if (typeof values['out'] === 'string') fs.writeFileSync(values['out'], text);
      else output.out(text);
      return 0;
    },
  },
  run: {
    summary: 'Build and serve .pipe files (rebuild on change with --watch)',
    usage: 'pipec run <files|dirs>... [--port N] [--watch] [--out DIR] [--root DIR]',
    options: {
      ...COMMON,
      port: { type: 'string', short: 'p' },
      watch: { type: 'boolean', short: 'w' },
      out: { type: 'string', short: 'o' },
      name: { type: 'string' },
    },
    help: "Builds the service (like `pipec build`) and runs it on --port (default $PORT or 8080) with embedded defaults: SQLite under $PIPEC_DATA_DIR (default ./.pipec-data). With --watch, a change to any input rebuilds and restarts it; a build with errors keeps the previous version running.\nFor development only (a `pipec build` output has no such route): `curl -X POST localhost:PORT/_pipec/schedules/<pipeline>` fires that pipeline's schedule now and answers its outcome; `GET /_pipec/schedules` lists them (callers on this machine only). --port 0 picks a free port; the address is printed once the service listens.",
    async run(values, positionals, output) {
      if (positionals.length === 0) return usage(this, output);
      const { runServe } = await import('./run-command.js');
      return runServe(
        {
          inputs: positionals,
          watch: values['watch'] === true,
          ...(typeof values['port'] === 'string' ? { port: values['port'] } : {}),
          ...(typeof values['out'] === 'string' ? { out: values['out'] } : {}),
          ...(typeof values['name'] === 'string' ? { name: values['name'] } : {}),
          color: wantsColor(values['color']),
          ...rootOption(values),
        },
        output,
      );
    },
  },
  ...toolCommands(),
  ...dxCommands(),
  ...testCommand(),
  ...deadLettersCommand(),
};

/** Entry point (bin/pipec.js): returns the exit code. */
/** The version of the installed pipec, from its package.json. */
function pipecVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? 'unknown';
}

export async function main(argv: readonly string[], output: Output = processOutput): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    output.out(topHelp());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    output.out(`pipec ${pipecVersion()}`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    output.err(`pipec: unknown command \`${name}\`\n\n${topHelp()}`);
    return 2;
  }
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...rest],
      options: command.options,
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (err) {
    output.err(`pipec ${name}: ${err instanceof Error ? err.message : String(err)}\nusage: ${command.usage}`);
    return 2;
  }
  if (parsed.values['help']) {
    output.out(`${command.summary}\n\nusage: ${command.usage}\n\n${command.help}`);
    return 0;
  }
  return command.run(parsed.values, parsed.positionals, output);
}

function usage(command: Command, output: Output): number {
  output.err(`usage: ${command.usage}\nRun with --help for details.`);
  return 2;
}

function topHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  return `pipec — integration pipelines as code, compiled\n\nusage: pipec <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun \`pipec <command> --help\` for a command's options.`;
}

export type { Command };
