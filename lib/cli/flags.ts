// Command-line flags in the style of Go's flag package, which the zed and zq
// commands use: `-name value`, `-name=value`, `--name`; boolean flags take no
// value; parsing stops at the first argument that is not a flag (or `--`).

import { invalid } from "../errors.ts";

export interface FlagSpec {
  name: string;
  kind: "bool" | "string" | "int";
  help: string;
  /** Shown in usage, e.g. "format". */
  arg?: string;
  default?: string | number | boolean;
  /** May be given several times; values accumulate in an array. */
  multi?: boolean;
}

export type FlagValues = Record<string, string | number | boolean | string[] | undefined>;

export function parseFlags(specs: FlagSpec[], args: string[]): [FlagValues, string[]] {
  const values: FlagValues = {};
  for (const s of specs) if (s.default !== undefined) values[s.name] = s.default;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    const body = a.startsWith("--") ? a.slice(2) : a.slice(1);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const spec = specs.find((s) => s.name === name);
    if (spec === undefined) throw invalid(`flag provided but not defined: -${name}`);
    let text: string;
    if (eq >= 0) {
      text = body.slice(eq + 1);
    } else if (spec.kind === "bool") {
      text = "true";
    } else {
      if (i + 1 >= args.length) throw invalid(`flag needs an argument: -${name}`);
      text = args[++i];
    }
    let v: string | number | boolean;
    if (spec.kind === "bool") {
      if (!/^(1|0|t|f|T|F|true|false|TRUE|FALSE|True|False)$/.test(text)) {
        throw invalid(`invalid boolean value ${JSON.stringify(text)} for -${name}`);
      }
      v = /^(1|t|T|true|TRUE|True)$/.test(text);
    } else if (spec.kind === "int") {
      if (!/^[+-]?\d+$/.test(text)) {
        throw invalid(`invalid value ${JSON.stringify(text)} for flag -${name}: parse error`);
      }
      v = Number(text);
    } else {
      v = text;
    }
    if (spec.multi) {
      const prev = values[spec.name];
      values[spec.name] = [...(Array.isArray(prev) ? prev : []), String(v)];
    } else {
      values[spec.name] = v;
    }
  }
  return [values, args.slice(i)];
}

/** Usage text for a command's flags. */
export function flagUsage(specs: FlagSpec[]): string {
  return specs.map((s) => {
    const head = `  -${s.name}` + (s.kind === "bool" ? "" : ` ${s.arg ?? s.kind}`);
    const def = s.default !== undefined && s.default !== false ? ` (default ${s.default})` : "";
    return head.padEnd(22) + " " + s.help + def;
  }).join("\n");
}
