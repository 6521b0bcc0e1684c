// Search globs (language.md §5.2) as anchored, case-sensitive regexps, the
// way Zed's pkg/reglob converts them: `*` (any run of stars) becomes `.*`,
// regexp metacharacters are escaped, and the extended-glob characters
// `? [ ] { }` are dropped. The glob text is what the parser leaves: escapes
// resolved, except that an escaped star stays `\*` (a literal star).

import { compileRegexp } from "./regexp.ts";
import { encodeUtf8 } from "../../zed/utf8.ts";

/** The RE2 source for a glob (Zed's reglob.Reglob). */
export function reglob(glob: string): string {
  // reglob walks bytes and appends each non-ASCII byte as the character of
  // that value, so non-ASCII glob text never matches its own UTF-8; keep that.
  const b = isAscii(glob) ? undefined : encodeUtf8(glob);
  const n = b === undefined ? glob.length : b.length;
  const at = (i: number) => (b === undefined ? glob.charCodeAt(i) : b[i]);
  let re = "";
  for (let i = 0; i < n; i++) {
    const c = at(i);
    switch (c) {
      case 0x2f: // /
      case 0x24: // $
      case 0x5e: // ^
      case 0x2b: // +
      case 0x2e: // .
      case 0x28: // (
      case 0x29: // )
      case 0x3d: // =
      case 0x21: // !
      case 0x7c: // |
      case 0x2c: // ,
        re += "\\" + String.fromCharCode(c);
        break;
      case 0x3f: // ?
      case 0x5b: // [
      case 0x5d: // ]
      case 0x7b: // {
      case 0x7d: // }
        break;
      case 0x5c: // \
        if (i + 1 < n && at(i + 1) === 0x2a) {
          i++;
          re += "\\*";
        } else {
          re += "\\";
        }
        break;
      case 0x2a: // *
        while (i + 1 < n && at(i + 1) === 0x2a) i++;
        re += ".*";
        break;
      default:
        re += String.fromCharCode(c);
    }
  }
  return "^" + re + "$";
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** The anchored regexp a search glob stands for (errors as for the regexp). */
export function globToRegexp(glob: string): RegExp {
  return compileRegexp(reglob(glob));
}
