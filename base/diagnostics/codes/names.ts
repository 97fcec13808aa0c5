import type { CodeTable } from '../codes.js';

const unknown = (what: string, example: string): string =>
  `The name does not match any ${what} of the files being compiled (all files given to one \`pipec\` command form one service and share one namespace).\n\nExample: ${example}. Check the spelling — the hint suggests the closest name — or declare it.`;

export const nameCodes = {
  PIPE2001: {
    title: 'Unknown connector',
    severity: 'error',
    phase: 'resolve',
    explain: unknown('connector', '`rets { url: "…" }` instead of `rest`'),
  },
  PIPE2002: {
    title: 'Unknown trigger',
    severity: 'error',
    phase: 'resolve',
    explain: unknown('trigger type', '`trigger htp { … }` instead of `http`'),
  },
  PIPE2003: {
    title: 'Duplicate declaration',
    severity: 'error',
    phase: 'resolve',
    explain:
      'Two declarations of the same kind share one name, so references to it would be ambiguous.\n\nExample: two `pipeline orders { … }` in different files of one service. Rename one of them.',
  },
  PIPE2004: {
    title: 'Unknown schema',
    severity: 'error',
    phase: 'resolve',
    explain: unknown(
      'schema (declared with `schema NAME {…}` or `import "file.json" as NAME`)',
      '`validate { schema: Ordr }`',
    ),
  },
  PIPE2005: {
    title: 'Unknown account',
    severity: 'error',
    phase: 'resolve',
    explain: unknown('account', '`agent { account: opnai }`'),
  },
  PIPE2006: {
    title: 'Unknown store',
    severity: 'error',
    phase: 'resolve',
    explain: unknown('store (declared with `store NAME`)', '`store reprocesss.find { … }`'),
  },
  PIPE2007: {
    title: 'Unknown pipeline',
    severity: 'error',
    phase: 'resolve',
    explain: unknown('pipeline', '`execute token-servce { … }`'),
  },
  PIPE2009: {
    title: 'Duplicate step label',
    severity: 'error',
    phase: 'resolve',
    explain:
      "Step labels name a step's output for `{{ step.<label> }}`, so they must be unique within a pipeline. Rename one of the steps.",
  },
  PIPE2010: {
    title: 'Unknown branch',
    severity: 'error',
    phase: 'resolve',
    explain: unknown('`branch NAME { … }` of this pipeline', '`when "$.a" -> aprove`'),
  },
  PIPE2011: {
    title: 'Import not found',
    severity: 'error',
    phase: 'resolve',
    explain:
      'The imported file does not exist or cannot be read. Paths are relative to the importing file.\n\nExample: `import "./schemas/order.json" as Order` next to a file that is in `./schema/`.',
  },
  PIPE2012: {
    title: 'Unknown store operation',
    severity: 'error',
    phase: 'resolve',
    explain:
      'A store step is written `store NAME.OPERATION { … }` with one of: insert, find, find-by-id, update, update-by-id, delete, delete-by-id, aggregate, create-index, list-indexes, drop-index.',
  },
  PIPE2013: {
    title: 'Invalid imported file',
    severity: 'error',
    phase: 'resolve',
    explain:
      'An imported `.json` file must hold JSON (a JSON Schema when imported `as` a schema name); an imported `.pipe` file is compiled with the importing file.',
  },
  PIPE2014: {
    title: 'Import outside the project',
    severity: 'error',
    phase: 'resolve',
    explain:
      'Imports resolve only inside the project: the folders given to pipec (a folder named on the command line, ' +
      'or the folder of a file named there), or the one folder named with `--root DIR`. Symbolic links are ' +
      'followed first, so a link that points outside does not count as inside. The file is not read, and ' +
      'nothing of it is shown.\n\n' +
      'Example: `pipec check examples/protected-api` with ' +
      '`import "../oauth2-token-service/oauth2-token-service.pipe"` — run ' +
      '`pipec check examples/protected-api --root examples` instead. A path such as `/etc/passwd` or ' +
      '`../../secrets.json` is refused this way.',
  },
  PIPE2015: {
    title: 'File cannot be imported',
    severity: 'error',
    phase: 'resolve',
    explain:
      'Only regular `.pipe` and `.json` files of at most 5 MB (the limit of every source file) can be imported, ' +
      'and a JSON file may nest at most 256 levels deep (as `.pipe` values may). Devices (`/dev/zero`), FIFOs, ' +
      'sockets and folders are refused before anything is read, and a larger file is refused before it is ' +
      'read into memory. The diagnostic says what the file is, never what it holds.\n\n' +
      'Example: `import "/dev/zero" as Z`, or `import "./big.json" as Big` with a 100 MB file: move large ' +
      'data out of the build, or split the schema.',
  },
} as const satisfies CodeTable;
