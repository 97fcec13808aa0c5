import type { CodeTable } from '../codes.js';

export const transformCodes: CodeTable = {
};
