// The results table: a page of rows at a time, read from the query's
// stream only as far as the page needs (as Zui does, a query of millions
// of rows costs what the pages looked at cost). Each cell's title is its
// Zed type.

import { cells } from "./zjson.js";

export const PAGE_ROWS = 100;

export class ResultsTable {
  constructor(table, pager, info, prev, next) {
    this.table = table;
    this.pager = pager;
    this.info = info;
    this.prev = prev;
    this.next = next;
    this.stream = null;
    this.page = 0;
    prev.addEventListener("click", () => this.show(this.page - 1));
    next.addEventListener("click", () => this.show(this.page + 1));
  }

  /** Shows a new query's first page. */
  async open(stream) {
    this.stream?.cancel();
    this.stream = stream;
    await this.show(0);
  }

  clear() {
    this.stream?.cancel();
    this.stream = null;
    this.table.replaceChildren();
    this.pager.hidden = true;
  }

  async show(page) {
    const s = this.stream;
    if (s === null || page < 0) return;
    // One row past the page tells whether there is a next one.
    await s.fill((page + 1) * PAGE_ROWS + 1);
    if (s !== this.stream) return;
    const first = page * PAGE_ROWS;
    if (first >= s.rows.length && page > 0) return;
    this.page = page;
    this.render(s.rows.slice(first, first + PAGE_ROWS));
    const last = Math.min(first + PAGE_ROWS, s.rows.length);
    const total = s.done ? `${s.rows.length}` : `${s.rows.length}+`;
    this.info.textContent = s.rows.length === 0
      ? "no results"
      : `rows ${first + 1}–${last} of ${total}`;
    this.prev.disabled = page === 0;
    this.next.disabled = last >= s.rows.length;
    this.pager.hidden = false;
  }

  render(rows) {
    const columns = [];
    const index = new Map();
    const lines = rows.map((r) => {
      const byColumn = new Map();
      for (const c of cells(r.type, r.value)) {
        if (!index.has(c.column)) {
          index.set(c.column, columns.length);
          columns.push(c.column);
        }
        byColumn.set(c.column, c);
      }
      return byColumn;
    });
    const head = document.createElement("tr");
    for (const name of columns) {
      const th = document.createElement("th");
      th.textContent = name;
      head.append(th);
    }
    const body = lines.map((byColumn) => {
      const tr = document.createElement("tr");
      for (const name of columns) {
        const td = document.createElement("td");
        const c = byColumn.get(name);
        if (c !== undefined) {
          td.textContent = c.text;
          td.title = c.type;
          if (c.text === "null") td.className = "null";
        }
        tr.append(td);
      }
      return tr;
    });
    const thead = document.createElement("thead");
    thead.append(head);
    const tbody = document.createElement("tbody");
    tbody.append(...body);
    this.table.replaceChildren(thead, tbody);
  }
}
