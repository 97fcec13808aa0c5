/**
 * The placeholder scanner behind PIPE3032: placeholders count outside strings, quoted names and
 * comments, each dialect with its own idea of those (test/cases/config/sql-placeholders.pipe
 * shows the diagnostics).
 */
import { describe, expect, it } from 'vitest';
import { placeholders } from './compile.js';

describe('placeholders', () => {
  it('takes the highest $n on PostgreSQL, skipping strings, names, comments and dollar-quoted text', () => {
    expect(placeholders('SELECT \'$9\', "$8" FROM t WHERE a = $1 AND b = $2 -- $3', 'postgres')).toEqual({
      dollar: 2,
      question: 0,
    });
    expect(placeholders('SELECT $$ $7 $$, $body$ $6 $body$, $1 /* $5 */', 'postgres').dollar).toBe(1);
    expect(placeholders('UPDATE t SET a = $3, b = $1', 'postgres').dollar).toBe(3);
    // A backslash does not escape in a standard string; it does in E'…'.
    expect(placeholders("SELECT 'C:\\' , $1", 'postgres').dollar).toBe(1);
    expect(placeholders("SELECT E'it\\'s $4', $1", 'postgres').dollar).toBe(1);
  });

  it('counts each ? on MySQL, skipping strings with escapes, backtick names and # comments', () => {
    expect(placeholders('INSERT INTO t VALUES (?, \'why?\', "a\\"?", `q?`, ?) # ?', 'mysql')).toEqual({
      dollar: 0,
      question: 2,
    });
    expect(placeholders("SELECT 'it''s ?', ? -- ?\n, ?", 'mysql').question).toBe(2);
    expect(placeholders('SELECT $1, ?', 'mysql')).toEqual({ dollar: 0, question: 1 });
  });
});
