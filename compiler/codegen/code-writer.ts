/** A tiny indentation-aware text builder for generated code. */
export class CodeWriter {
  private readonly lines: string[] = [];
  private depth = 0;

  line(text: string): this {
    this.lines.push(text === '' ? '' : `${'  '.repeat(this.depth)}${text}`);
    return this;
  }

  blank(): this {
    this.lines.push('');
    return this;
  }

  /** `head {` … `}` with the body indented; `after` follows the closing brace (e.g. `;`). */
  block(head: string, body: () => void, after = ''): this {
    this.line(`${head} {`);
    this.depth++;
    body();
    this.depth--;
    this.line(`}${after}`);
    return this;
  }

  append(other: CodeWriter): this {
    for (const l of other.lines) this.lines.push(l === '' ? '' : `${'  '.repeat(this.depth)}${l}`);
    return this;
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}
