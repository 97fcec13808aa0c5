import type { CodeTable } from '../codes.js';

export const internalCodes: CodeTable = {
};
