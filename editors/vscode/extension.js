// VS Code entry: starts `pipec lsp` over stdio for .pipe files (the client adds `--stdio`).
// The executable comes from the `pipec.path` setting; a path ending in .js runs with VS Code's Node.
'use strict';
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function serverOptions() {
  const configured = vscode.workspace.getConfiguration('pipec').get('path') || 'pipec';
  if (configured.endsWith('.js')) {
    return { module: configured, args: ['lsp'], transport: TransportKind.stdio };
  }
  return { command: configured, args: ['lsp'], transport: TransportKind.stdio };
}

async function activate(context) {
  client = new LanguageClient('pipec', 'pipec language server', serverOptions(), {
    documentSelector: [
      { scheme: 'file', language: 'pipe' },
      { scheme: 'untitled', language: 'pipe' },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.pipe') },
  });
  context.subscriptions.push(client);
  await client.start();
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
