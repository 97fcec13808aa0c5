import type { CodeTable } from '../codes.js';

export const syntaxCodes: CodeTable = {
};
