import type { CodeTable } from '../codes.js';

export const flowCodes: CodeTable = {
};
