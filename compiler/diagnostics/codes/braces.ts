import type { CodeTable } from '../codes.js';

export const bracesCodes: CodeTable = {
};
