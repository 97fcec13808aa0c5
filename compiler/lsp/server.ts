/**
 * `pipec lsp`: the .pipe language server (vscode-languageserver).
 *
 * On open/change a document's folder is compiled as one service (compile() with emit off; open
 * documents override the files on disk, so cross-file references resolve while typing), debounced,
 * and every diagnostic is published with its exact range. Hover, completion and definition are
 * answered by features.ts over the same folder. All file-system access goes through `ServerHost`
 * so tests can run the server in-process over a pair of streams.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CompletionItemKind,
  createConnection,
  DiagnosticSeverity,
  MarkupKind,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type CompletionItem,
  type Connection,
  type Diagnostic as LspDiagnostic,
  type Location,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { PipeFile } from '../ast/ast.js';
import { parseFile } from '../ast/parse-file.js';
import { folderRoots, MAX_SOURCE_BYTES, projectHost, readRegularFile } from '../project-files.js';
import { compile, type FileRead } from '../compile.js';
import type { ConnectorRegistry } from '../connectors/connector-registry.js';
import { loadRegistry } from '../connectors/load-registry.js';
import type { Diagnostic } from '../../base/diagnostics/diagnostic.js';
import type { Span } from '../../base/source/span.js';
import { complete, definition, hover, type CompletionKind, type ProjectFile, type ProjectView } from './features.js';
import type { StepShape } from '../check/context.js';
import { LineIndex } from './positions.js';

export interface ServerHost {
  /** The text of a file on disk, or undefined. */
  readFile(filePath: string): string | undefined;
  /** The .pipe files directly inside a folder (absolute paths). */
  listPipeFiles(folder: string): string[];
}

export interface ServerOptions {
  readonly registry?: ConnectorRegistry;
  readonly host?: ServerHost;
  /** Delay between the last change and the compile (ms). */
  readonly debounceMs?: number;
}

const MAX_FILES_PER_FOLDER = 500;

export const diskHost: ServerHost = {
  readFile(filePath) {
    // Regular files of at most 5 MB only: a device or FIFO must not block the server.
    const read = readRegularFile(filePath, MAX_SOURCE_BYTES);
    return 'text' in read ? read.text : undefined;
  },
  listPipeFiles(folder) {
    try {
      return fs
        .readdirSync(folder, { withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith('.pipe') && !e.name.endsWith('.test.pipe'))
        .map((e) => path.join(folder, e.name))
        .sort()
        .slice(0, MAX_FILES_PER_FOLDER);
    } catch {
      return [];
    }
  },
};

/** Runs the server on stdin/stdout until the client disconnects; resolves with the exit code. */
export function startStdioServer(): Promise<number> {
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  return new Promise((resolve) => {
    connection.onExit(() => resolve(0));
    process.stdin.on('close', () => resolve(0));
    createPipeLanguageServer(connection);
  });
}

const COMPLETION_KINDS: Record<CompletionKind, CompletionItemKind> = {
  connector: CompletionItemKind.Class,
  keyword: CompletionItemKind.Keyword,
  param: CompletionItemKind.Property,
  function: CompletionItemKind.Function,
  trigger: CompletionItemKind.Event,
  variable: CompletionItemKind.Variable,
  field: CompletionItemKind.Field,
};

/** Wires the language features to a connection and starts listening. */
export function createPipeLanguageServer(connection: Connection, options: ServerOptions = {}): void {
  const host = options.host ?? diskHost;
  const debounceMs = options.debounceMs ?? 150;
  const documents = new TextDocuments(TextDocument);
  // Loaded once, on the first document (its connectors' compile-time parts are modules to import).
  let registry: Promise<ConnectorRegistry> | undefined = options.registry
    ? Promise.resolve(options.registry)
    : undefined;
  const getRegistry = (): Promise<ConnectorRegistry> => (registry ??= loadRegistry());
  const timers = new Map<string, NodeJS.Timeout>();
  /** URIs we published non-empty diagnostics for, per folder, so fixed files get cleared. */
  const published = new Map<string, Set<string>>();
  const parseCache = new Map<string, { text: string; ast: PipeFile }>();
  /** Per folder: the step shapes of its last compile, for hover and `message.` completion. */
  const shapesByFolder = new Map<string, readonly StepShape[]>();
  /** The workspace folders: imports resolve inside them (as `pipec check --root`), else inside the file's folder. */
  let workspaceRoots: string[] = [];

  const pathOf = (uri: string): string => (uri.startsWith('file:') ? fileURLToPath(uri) : uri);
  const uriOf = (file: string): string => (path.isAbsolute(file) ? pathToFileURL(file).href : file);
  const openText = (file: string): string | undefined => documents.get(uriOf(file))?.getText();
  const textOf = (file: string): string | undefined => openText(file) ?? host.readFile(file);

  /** The compile unit of a document: the .pipe files of its folder, open documents first. */
  const unitOf = (file: string): { folder: string; files: { path: string; text: string }[] } => {
    const folder = path.dirname(file);
    const paths = new Set(path.isAbsolute(file) ? host.listPipeFiles(folder) : []);
    for (const doc of documents.all()) {
      const docPath = pathOf(doc.uri);
      if (path.dirname(docPath) === folder && docPath.endsWith('.pipe')) paths.add(docPath);
    }
    paths.add(file);
    const files: { path: string; text: string }[] = [];
    for (const p of [...paths].sort()) {
      const text = textOf(p);
      if (text !== undefined) files.push({ path: p, text });
    }
    return { folder, files };
  };

  const projectOf = async (file: string): Promise<ProjectView> => {
    const unit = unitOf(file);
    const files: ProjectFile[] = unit.files.map((f) => {
      const cached = parseCache.get(f.path);
      if (cached && cached.text === f.text) return { path: f.path, text: f.text, ast: cached.ast };
      const ast = parseFile(f.path, f.text).value;
      parseCache.set(f.path, { text: f.text, ast });
      return { path: f.path, text: f.text, ast };
    });
    return { files, registry: await getRegistry(), shapes: shapesByFolder.get(unit.folder) ?? [] };
  };

  const validate = async (file: string): Promise<void> => {
    const registry = await getRegistry();
    const unit = unitOf(file);
    const result = compile({
      files: unit.files,
      registry,
      host: importHost(workspaceRoots.length > 0 ? workspaceRoots : folderRoots([unit.folder])),
      serviceName: path.basename(unit.folder) || 'service',
      emit: false,
    });
    if (result.shapes) shapesByFolder.set(unit.folder, result.shapes);
    const byFile = new Map<string, LspDiagnostic[]>();
    for (const d of result.diagnostics) {
      const source = result.sources.get(d.primary.span.file);
      const text = source?.text ?? textOf(d.primary.span.file) ?? '';
      const list = byFile.get(d.primary.span.file) ?? [];
      list.push(toLspDiagnostic(d, text, (f) => result.sources.get(f)?.text ?? textOf(f) ?? '', uriOf));
      byFile.set(d.primary.span.file, list);
    }
    const before = published.get(unit.folder) ?? new Set<string>();
    const now = new Set<string>();
    for (const f of unit.files) if (!byFile.has(f.path)) byFile.set(f.path, []);
    for (const [f, diagnostics] of byFile) {
      const uri = uriOf(f);
      if (diagnostics.length > 0) now.add(uri);
      void connection.sendDiagnostics({ uri, diagnostics });
    }
    for (const uri of before)
      if (!now.has(uri) && !byFile.has(pathOf(uri))) void connection.sendDiagnostics({ uri, diagnostics: [] });
    published.set(unit.folder, now);
  };

  const schedule = (uri: string): void => {
    const file = pathOf(uri);
    const key = path.dirname(file);
    const pending = timers.get(key);
    if (pending) clearTimeout(pending);
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        validate(file).catch((err: unknown) => {
          connection.console.error(
            `pipec lsp: compiling ${file} failed: ${err instanceof Error ? err.message : String(err)}`,
          );
        });
      }, debounceMs),
    );
  };

  /** Imports follow the CLI's project rules; an open document's unsaved text wins over the disk. */
  const importHost = (roots: readonly string[]) => {
    const confined = projectHost(roots);
    const readProjectFile = (file: string): FileRead => {
      const read = confined.readProjectFile?.(file) ?? { refused: 'not-found', detail: 'no such file' };
      if ('refused' in read && read.refused !== 'not-found') return read;
      const text = textOf(file);
      return text === undefined ? read : { text };
    };
    return { readFile: textOf, readProjectFile };
  };

  connection.onInitialize((params) => {
    const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    workspaceRoots = folderRoots(folders.filter((uri) => uri.startsWith('file:')).map((uri) => fileURLToPath(uri)));
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        definitionProvider: true,
        completionProvider: { triggerCharacters: ['.', ' ', '{', '('] },
      },
      serverInfo: { name: 'pipec', version: '0.1.0' },
    };
  });

  documents.onDidOpen((e) => schedule(e.document.uri));
  documents.onDidChangeContent((e) => schedule(e.document.uri));
  documents.onDidClose((e) => {
    parseCache.delete(pathOf(e.document.uri));
    schedule(e.document.uri);
  });

  connection.onHover(async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const file = pathOf(doc.uri);
    const index = new LineIndex(doc.getText());
    const found = hover(await projectOf(file), file, index.offsetAt(params.position));
    return found
      ? { contents: { kind: MarkupKind.Markdown, value: found.markdown }, range: index.rangeOf(found.span) }
      : null;
  });

  connection.onDefinition(async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const file = pathOf(doc.uri);
    const project = await projectOf(file);
    const targets = definition(project, file, new LineIndex(doc.getText()).offsetAt(params.position));
    return targets.map((t) => toLocation(t.span, project, uriOf));
  });

  connection.onCompletion(async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const file = pathOf(doc.uri);
    const index = new LineIndex(doc.getText());
    const offset = index.offsetAt(params.position);
    const result = complete(await projectOf(file), file, offset);
    const range = { start: index.positionAt(result.replaceFrom), end: params.position };
    return result.items.map((item, i): CompletionItem => ({
      label: item.label,
      kind: COMPLETION_KINDS[item.kind],
      ...(item.detail ? { detail: item.detail } : {}),
      ...(item.documentation ? { documentation: { kind: MarkupKind.Markdown, value: item.documentation } } : {}),
      textEdit: { range, newText: item.insertText ?? item.label },
      sortText: String(i).padStart(4, '0'),
    }));
  });

  documents.listen(connection);
  connection.listen();
}

function toLocation(span: Span, project: ProjectView, uriOf: (file: string) => string): Location {
  const text = project.files.find((f) => f.path === span.file)?.text ?? '';
  return { uri: uriOf(span.file), range: new LineIndex(text).rangeOf(span) };
}

/** A compiler diagnostic as an LSP one: exact range, code, message with the label and hint. */
export function toLspDiagnostic(
  d: Diagnostic,
  text: string,
  textOf: (file: string) => string,
  uriOf: (file: string) => string,
): LspDiagnostic {
  const index = new LineIndex(text);
  const details = [
    d.primary.message && d.primary.message !== d.message ? d.primary.message : '',
    ...d.body,
    d.hint ? `hint: ${d.hint}` : '',
  ].filter((s) => s !== '');
  return {
    range: index.rangeOf(d.primary.span),
    severity: d.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: 'pipec',
    message: details.length > 0 ? `${d.message}\n${details.join('\n')}` : d.message,
    ...(d.secondary.length > 0
      ? {
          relatedInformation: d.secondary.map((label) => ({
            location: {
              uri: uriOf(label.span.file),
              range: new LineIndex(textOf(label.span.file)).rangeOf(label.span),
            },
            message: label.message,
          })),
        }
      : {}),
  };
}
