import type { CodeTable } from '../codes.js';

export const configCodes: CodeTable = {
};
