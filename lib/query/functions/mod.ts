// Importing this module registers the whole scalar function library.

import "./types.ts";
import "./strings.ts";
import "./net.ts";
import "./time.ts";
import "./math.ts";
import "./encoding.ts";
import "./shaping.ts";
import "./compare.ts";
import "./records.ts";
import "./uri.ts";
import "./parse.ts";
import "./regexp.ts";
