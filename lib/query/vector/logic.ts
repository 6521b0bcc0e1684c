// The logical nodes of a filter over columns (filter.ts): a constant outcome,
// and `and`, `or` and `!` combining their operands' outcome codes per record
// type and per row by the reference's rules for values that are not bools.
// `and` and `or` evaluate their right side only for the rows (and record
// types) whose left outcome does not decide.

import type { ColumnarObject } from "./object.ts";
import { F, type FilterNode, M, T, type TypeIndex, type TypeOutcomes, VARIES } from "./codes.ts";

export class ConstAtom implements FilterNode {
  constructor(private code: number) {}
  perType(o: ColumnarObject): TypeOutcomes {
    return new Int8Array(o.types.length).fill(this.code);
  }
  eval(o: ColumnarObject): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(o.rows).fill(this.code));
  }
}

/** Combines two nodes' outcomes, per type and per row, by a rule on outcome codes. */
abstract class Binary implements FilterNode {
  constructor(private a: FilterNode, private b: FilterNode) {}
  protected abstract combine(x: number, y: number): number;

  perType(o: ColumnarObject): TypeOutcomes | null {
    const x = this.a.perType(o);
    if (x === null) return null;
    const y = this.b.perType(o);
    if (y === null) return null;
    const out = new Int8Array(x.length);
    for (let k = 0; k < x.length; k++) {
      out[k] = x[k] === VARIES || y[k] === VARIES
        ? this.partial(x[k], y[k])
        : this.combine(x[k], y[k]);
    }
    return out;
  }

  /** The outcome when one side varies: decided by the other side alone, or VARIES. */
  protected abstract partial(x: number, y: number): number;

  /** Whether a row whose left outcome is x takes the right side's outcome. */
  protected abstract takesRight(x: number): boolean;

  /**
   * The right side's outcomes per type, with types none of whose rows take
   * them decided (as false), so that their columns are not read.
   */
  private narrowed(pb: TypeOutcomes, x: Uint8Array, types: TypeIndex): TypeOutcomes {
    if (types === null) return pb;
    const needed = new Uint8Array(pb.length);
    for (let i = 0; i < x.length; i++) if (this.takesRight(x[i])) needed[types[i]] = 1;
    let out = pb;
    for (let k = 0; k < pb.length; k++) {
      if (needed[k] === 0 && pb[k] === VARIES) {
        if (out === pb) out = pb.slice();
        out[k] = F;
      }
    }
    return out;
  }

  async eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array | null> {
    const pa = this.a.perType(o)!, pb = this.b.perType(o)!;
    const x = await this.a.eval(o, types, pa);
    if (x === null) return null;
    // Where no row's outcome takes the right side's, it is not evaluated.
    let needed = false;
    for (let i = 0; i < x.length && !needed; i++) needed = this.takesRight(x[i]);
    if (!needed) return x;
    const y = await this.b.eval(o, types, this.narrowed(pb, x, types));
    if (y === null) return null;
    void per;
    for (let i = 0; i < x.length; i++) x[i] = this.combine(x[i], y[i]);
    return x;
  }
}

export class And extends Binary {
  // A non-bool LHS is the result; false stays false; true takes the RHS.
  protected combine(x: number, y: number): number {
    return x === T ? y : x;
  }
  protected partial(x: number, _y: number): number {
    return x === VARIES || x === T ? VARIES : x;
  }
  protected takesRight(x: number): boolean {
    return x === T;
  }
}

export class Or extends Binary {
  // True stays true; false or missing take the RHS; other errors are the result.
  protected combine(x: number, y: number): number {
    return x === F || x === M ? y : x;
  }
  protected partial(x: number, _y: number): number {
    return x === VARIES || x === F || x === M ? VARIES : x;
  }
  protected takesRight(x: number): boolean {
    return x === F || x === M;
  }
}

export class Not implements FilterNode {
  constructor(private a: FilterNode) {}
  perType(o: ColumnarObject): TypeOutcomes | null {
    const x = this.a.perType(o);
    if (x === null) return null;
    const out = new Int8Array(x.length);
    for (let k = 0; k < x.length; k++) out[k] = x[k] === VARIES ? VARIES : not(x[k]);
    return out;
  }
  async eval(o: ColumnarObject, types: TypeIndex, per: TypeOutcomes): Promise<Uint8Array | null> {
    const x = await this.a.eval(o, types, this.a.perType(o)!);
    if (x === null) return null;
    void per;
    for (let i = 0; i < x.length; i++) x[i] = not(x[i]);
    return x;
  }
}

function not(c: number): number {
  return c === T ? F : c === F ? T : c;
}
