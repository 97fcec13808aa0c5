/**
 * `pipec run <files|dirs> [--watch]`: build, then serve the service in a child process; with
 * --watch, rebuild and restart when an input changes (a failed build keeps the old one running).
 * The child is dev-server.js: the service as server.js starts it, plus development routes (fire a
 * schedule now) that a `pipec build` output does not have.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build, defaultServiceName } from './build-command.js';
import type { Output } from './compile-files.js';
import { findPipeFiles, packageRoot } from '../project-files.js';

export interface RunOptions {
  readonly inputs: readonly string[];
  readonly watch: boolean;
  readonly port?: string;
  readonly out?: string;
  readonly name?: string;
  readonly color: boolean;
  readonly root?: string;
}

export async function runServe(opts: RunOptions, output: Output): Promise<number> {
  const name = opts.name ?? defaultServiceName(opts.inputs);
  const outDir = path.resolve(opts.out ?? path.join('out', name));
  // The development server loads the service's modules, never the start-up bundle: no need to make one.
  const buildOnce = async (): Promise<boolean> =>
    (
      await build(
        {
          inputs: opts.inputs,
          out: outDir,
          name,
          format: 'text',
          color: opts.color,
          bundle: false,
          ...(opts.root !== undefined ? { root: opts.root } : {}),
        },
        output,
      )
    ).ok;
  if (!(await buildOnce()) && !opts.watch) return 1;

  let child: ChildProcess | undefined;
  const devServer = path.join(packageRoot(), 'dist', 'compiler', 'cli', 'dev-server.js');
  const start = (): void => {
    child = spawn(process.execPath, [devServer, outDir], {
      stdio: 'inherit',
      env: { ...process.env, ...(opts.port ? { PORT: opts.port } : {}) },
    });
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  if (fs.existsSync(path.join(outDir, 'server.js'))) start();

  if (!opts.watch) {
    return new Promise<number>((resolve) => {
      const forward = (signal: NodeJS.Signals) => () => child?.kill(signal);
      process.once('SIGINT', forward('SIGINT'));
      process.once('SIGTERM', forward('SIGTERM'));
      child?.once('exit', (code) => resolve(code ?? 0));
      if (!child) resolve(1);
    });
  }

  output.err('Watching for changes (Ctrl+C to stop)…');
  let timer: NodeJS.Timeout | undefined;
  const watched = new Set<string>();
  const watchers: fs.FSWatcher[] = [];
  const rebuild = async (): Promise<void> => {
    if (await buildOnce()) {
      await stop();
      start();
      output.err('Rebuilt and restarted.');
    } else {
      output.err('Build failed; the previous version keeps running.');
    }
    watchInputs();
  };
  const watchInputs = (): void => {
    for (const file of findPipeFiles(opts.inputs).files) {
      if (watched.has(file)) continue;
      watched.add(file);
      watchers.push(
        fs.watch(file, () => {
          clearTimeout(timer);
          timer = setTimeout(() => void rebuild(), 150);
        }),
      );
    }
  };
  watchInputs();
  for (const input of opts.inputs) {
    if (fs.existsSync(input) && fs.statSync(input).isDirectory()) {
      watchers.push(
        fs.watch(input, { recursive: true }, (_event, file) => {
          if (file && String(file).endsWith('.pipe')) {
            clearTimeout(timer);
            timer = setTimeout(() => void rebuild(), 150);
          }
        }),
      );
    }
  }
  return new Promise<number>((resolve) => {
    // Watchers keep the event loop alive: close them so the command really ends.
    const finish = () => {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
      void stop().then(() => resolve(0));
    };
    process.once('SIGINT', finish);
    process.once('SIGTERM', finish);
  });
}
