import type { CodeTable } from '../codes.js';

export const nameCodes: CodeTable = {
};
