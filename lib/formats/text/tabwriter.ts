// Go's text/tabwriter, for the table writer: text is split into cells ended
// by tabs (or vertical tabs) and lines; the cell text before a newline is not
// part of a column. A column block is a run of consecutive lines that have a
// cell in that column; each block is as wide as its widest cell plus the
// padding, and columns to its right are laid out within the block. Lines are
// buffered until a flush: an explicit one, a form feed, or a line that has a
// single cell (which cannot affect any alignment).
//
// Widths count code points, as Go counts runes. The escape and HTML options
// are not implemented (the table writer uses neither, and 0xff never occurs
// in UTF-8 text).

interface Cell {
  text: string;
  /** Code points in text. */
  width: number;
  /** Ended by a horizontal tab (not a vertical tab). */
  htab: boolean;
}

function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = s.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) n--;
    }
  }
  return n;
}

export class TabWriter {
  private lines: Cell[][] = [[]];
  /** Text of the cell being written. */
  private cell = "";
  private widths: number[] = [];
  private out = "";

  /** emit receives formatted text at each flush. */
  constructor(
    private emit: (text: string) => void,
    private minwidth = 0,
    private padding = 1,
    private padchar = " ",
  ) {}

  write(s: string): void {
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c !== 9 && c !== 10 && c !== 11 && c !== 12) continue;
      this.cell += s.slice(start, i);
      start = i + 1;
      const ncells = this.terminateCell(c === 9);
      if (c === 10 || c === 12) {
        this.lines.push([]);
        if (c === 12 || ncells === 1) this.flush();
      }
    }
    if (start < s.length) this.cell += s.slice(start);
  }

  /** Formats and emits everything buffered. */
  flush(): void {
    if (this.cell.length > 0) this.terminateCell(false);
    this.format(0, this.lines.length);
    this.lines = [[]];
    this.widths = [];
    if (this.out.length > 0) {
      this.emit(this.out);
      this.out = "";
    }
  }

  private terminateCell(htab: boolean): number {
    const line = this.lines[this.lines.length - 1];
    line.push({ text: this.cell, width: runeCount(this.cell), htab });
    this.cell = "";
    return line.length;
  }

  private format(line0: number, line1: number): void {
    const column = this.widths.length;
    for (let t = line0; t < line1; t++) {
      if (column >= this.lines[t].length - 1) continue;
      // A cell in this column: this line starts a block.
      this.writeLines(line0, t);
      line0 = t;
      let width = this.minwidth;
      for (; t < line1; t++) {
        const line = this.lines[t];
        if (column >= line.length - 1) break;
        const w = line[column].width + this.padding;
        if (w > width) width = w;
      }
      // Lay out the columns to the right within this block.
      this.widths.push(width);
      this.format(line0, t);
      this.widths.pop();
      line0 = t;
    }
    this.writeLines(line0, line1);
  }

  private writeLines(line0: number, line1: number): void {
    const widths = this.widths;
    for (let i = line0; i < line1; i++) {
      const line = this.lines[i];
      for (let j = 0; j < line.length; j++) {
        const c = line[j];
        this.out += c.text;
        if (j < widths.length) this.out += this.padchar.repeat(widths[j] - c.width);
      }
      // The last buffered line is the (empty) one after the final newline.
      if (i + 1 < this.lines.length) this.out += "\n";
    }
  }
}
