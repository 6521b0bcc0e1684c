import assert from "node:assert/strict";
import { compileRegexp, translateRegexp } from "../../lib/query/expr/regexp.ts";
import { scriptNames } from "../../lib/query/expr/search-re2-tables.ts";
import { LochError } from "../../lib/errors.ts";

/** Which of the inputs the Go regexp finds a match in. */
function matches(src: string, inputs: string[]): boolean[] {
  const re = compileRegexp(src);
  return inputs.map((s) => re.test(s));
}

function goError(src: string, fragment = false): string {
  try {
    compileRegexp(src, { fragment });
  } catch (e) {
    assert.ok(e instanceof LochError);
    assert.equal(e.kind, "invalid");
    return e.message;
  }
  throw new Error(`no error for ${src}`);
}

Deno.test("regexp: unanchored search with RE2 basics", () => {
  assert.deepEqual(matches("(foo|bar)", ["foo", "xbarx", "baz"]), [true, true, false]);
  assert.deepEqual(matches("^foo.*bar$", ["foobar", "foobazbar", "xfoobazbar", "foobazbarx"]), [
    true,
    true,
    false,
    false,
  ]);
  assert.deepEqual(matches("a{,2}", ["a{,2}", "aa"]), [true, false]); // not a repeat: literal
  assert.deepEqual(matches("a{2", ["a{2", "aa"]), [true, false]);
  assert.deepEqual(matches("x{2}y", ["xxy", "xy"]), [true, false]);
  assert.deepEqual(matches("^*a", ["a"]), [true]); // an empty-width repeat is allowed
  assert.deepEqual(matches("[]a]", ["]", "a", "b"]), [true, true, false]);
  assert.deepEqual(matches("[a-c-e]", ["-", "d", "e"]), [true, false, true]);
  assert.deepEqual(matches("[^a]", ["\n", "a"]), [true, false]);
  assert.deepEqual(matches("a|", ["", "b"]), [true, true]);
  assert.deepEqual(matches("()", ["x"]), [true]);
});

Deno.test("regexp: dot, anchors and flags", () => {
  assert.deepEqual(matches("a.c", ["a\rc", "a\u2028c", "a\nc"]), [true, true, false]);
  assert.deepEqual(matches("(?s)a.c", ["a\nc"]), [true]);
  assert.deepEqual(matches("^b$", ["b", "a\nb", "b\n"]), [true, false, false]);
  assert.deepEqual(matches("(?m)^b$", ["a\nb\nc", "a\rb", "b"]), [true, false, true]);
  assert.deepEqual(matches("\\Aab\\z", ["ab", "abc", "ab\n"]), [true, false, false]);
  assert.deepEqual(matches("(?i)abc", ["ABC", "aBc", "ab"]), [true, true, false]);
  assert.deepEqual(matches("a(?i)bc", ["aBC", "ABC"]), [true, false]);
  assert.deepEqual(matches("(a(?i)b)c", ["aBc", "aBC"]), [true, false]); // flags end with the group
  assert.deepEqual(matches("(?i)a|b", ["A", "B"]), [true, true]); // and span alternatives
  assert.deepEqual(matches("(?i:a)b", ["Ab", "AB"]), [true, false]);
  assert.deepEqual(matches("(?i)a(?-i)b", ["Ab", "AB"]), [true, false]);
  assert.deepEqual(matches("(?i)k", ["\u212a", "K"]), [true, true]);
  // \b stays ASCII-only under (?i): the Kelvin sign is no word character.
  assert.deepEqual(matches("(?i)\\bk", ["\u212a", "xk", "k"]), [false, false, true]);
  // Case folding happens before a class is negated, as in RE2.
  assert.deepEqual(matches("(?i)[^k]", ["K", "\u212a", "x"]), [false, false, true]);
  assert.deepEqual(matches("(?i)\\P{Ll}", ["a", "A", "1"]), [false, false, true]);
  assert.deepEqual(matches("(?i)[^\\W]", ["k", "\u212a", "-"]), [true, true, false]);
  const ungreedy = compileRegexp("(?U)(a+)");
  assert.equal(ungreedy.exec("aaa")?.[1], "a");
  assert.equal(compileRegexp("(?U)(a+?)").exec("aaa")?.[1], "aaa");
});

Deno.test("regexp: classes, escapes and Unicode groups", () => {
  assert.deepEqual(matches("^[[:alpha:]]+$", ["abc", "ab1"]), [true, false]);
  assert.deepEqual(matches("[[:^alpha:]]", ["abc", "ab1"]), [false, true]);
  assert.deepEqual(matches("[[:punct:]]", ["a!", "a"]), [true, false]);
  assert.deepEqual(matches("\\s", ["\u00a0", "\v", " "]), [false, false, true]);
  assert.deepEqual(matches("[[:space:]]", ["\v"]), [true]);
  assert.deepEqual(matches("\\w", ["é", "_"]), [false, true]);
  assert.deepEqual(matches("[\\d\\s]", [" ", "1", "a"]), [true, true, false]);
  assert.deepEqual(matches("\\pL", ["é", "1"]), [true, false]);
  assert.deepEqual(matches("\\PL", ["é", "1"]), [false, true]);
  assert.deepEqual(matches("\\p{Greek}", ["α", "a"]), [true, false]);
  assert.deepEqual(matches("\\p{^Greek}", ["α", "a"]), [false, true]);
  assert.deepEqual(matches("[\\p{Greek}\\d]", ["α", "1", "a"]), [true, true, false]);
  assert.deepEqual(matches("\\p{Any}", ["\n"]), [true]);
  assert.deepEqual(matches("\\pC", ["\u0378", "\u0007"]), [false, true]); // no unassigned
  assert.deepEqual(matches("\\Qa.b\\E+", ["a.bb", "axb"]), [true, false]);
  assert.deepEqual(matches("\\Qa.b", ["a.b"]), [true]);
  assert.deepEqual(matches("\\101\\x42\\x{1F600}\\0", ["AB😀\0"]), [true]);
  assert.deepEqual(matches("\\12", ["\n"]), [true]); // octal
  assert.deepEqual(matches("\\a\\f\\t\\v\\.\\_", ["\x07\f\t\v._"]), [true]);
  assert.deepEqual(matches("(?P<year>\\d{4})-(\\d+)", ["2024-01"]), [true]);
  assert.equal(compileRegexp("(?P<y>a)(b)").exec("ab")?.[2], "b");
  for (const name of scriptNames) {
    assert.doesNotThrow(() => compileRegexp(`\\p{${name}}`), name);
  }
});

Deno.test("regexp: error messages name the whole pattern by default", () => {
  assert.equal(goError("("), "error parsing regexp: missing closing ): `(`");
  assert.equal(goError("foo(.?"), "error parsing regexp: missing closing ): `foo(.?`");
  assert.equal(goError("a)"), "error parsing regexp: unexpected ): `a)`");
  assert.equal(goError("a**"), "error parsing regexp: invalid nested repetition operator: `a**`");
  assert.equal(goError("\\8x"), "error parsing regexp: invalid escape sequence: `\\8x`");
});

Deno.test("regexp: Go's fragment error messages", () => {
  const cases: [string, string][] = [
    ["(", "missing closing ): `(`"],
    ["a(b|c", "missing closing ): `a(b|c`"],
    [")", "unexpected ): `)`"],
    ["x(a))", "unexpected ): `x(a))`"],
    ["a**", "invalid nested repetition operator: `**`"],
    ["a*?*", "invalid nested repetition operator: `*?*`"],
    ["x{2}{3}", "invalid nested repetition operator: `{2}{3}`"],
    ["*", "missing argument to repetition operator: `*`"],
    ["a|+?", "missing argument to repetition operator: `+?`"],
    ["(?i)*", "missing argument to repetition operator: `*`"],
    ["a{1001}", "invalid repeat count: `{1001}`"],
    ["a{2,1}", "invalid repeat count: `{2,1}`"],
    ["a{99999999999}", "invalid repeat count: `{99999999999}`"],
    ["(a{100}){20}", "invalid repeat count: `{20}`"],
    ["\\8", "invalid escape sequence: `\\8`"],
    ["\\1", "invalid escape sequence: `\\1`"],
    ["\\C", "invalid escape sequence: `\\C`"],
    ["\\xZ1", "invalid escape sequence: `\\xZ1`"],
    ["\\x{110000}", "invalid escape sequence: `\\x{110000`"],
    ["\\x{}", "invalid escape sequence: `\\x{}`"],
    ["[\\b]", "invalid escape sequence: `\\b`"],
    ["\\é", "invalid escape sequence: `\\é`"],
    ["a\\", "trailing backslash at end of expression: ``"],
    ["[a", "missing closing ]: `[a`"],
    ["x[]", "missing closing ]: `[]`"],
    ["[[:alpha:]", "missing closing ]: `[[:alpha:]`"],
    ["[z-a]", "invalid character class range: `z-a`"],
    ["[[:foo:]]", "invalid character class range: `[:foo:]`"],
    ["\\p{Foo}", "invalid character class range: `\\p{Foo}`"],
    ["\\p{Latn}", "invalid character class range: `\\p{Latn}`"],
    ["\\p{greek}", "invalid character class range: `\\p{greek}`"],
    ["\\pé", "invalid character class range: `\\pé`"],
    ["\\p{Greek", "invalid character class range: `\\p{Greek`"],
    ["(?<n>a)", "invalid or unsupported Perl syntax: `(?<`"],
    ["(?x)", "invalid or unsupported Perl syntax: `(?x`"],
    ["(?-)", "invalid or unsupported Perl syntax: `(?-)`"],
    ["(?i-", "invalid or unsupported Perl syntax: `(?i-`"],
    ["(?=a)", "invalid or unsupported Perl syntax: `(?=`"],
    ["(?P=n)", "invalid or unsupported Perl syntax: `(?P`"],
    ["(?P<n!>a)", "invalid named capture: `(?P<n!>`"],
    ["(?P<>a)", "invalid named capture: `(?P<>`"],
    ["(?P<n", "invalid named capture: `(?P<n`"],
  ];
  for (const [src, msg] of cases) {
    assert.equal(goError(src, true), `error parsing regexp: ${msg}`, src);
  }
  assert.equal(
    goError("(".repeat(1001) + ")".repeat(1001), true),
    "error parsing regexp: expression nests too deeply: `" + "(".repeat(1001) + ")".repeat(1001) +
      "`",
  );
});

Deno.test("regexp: translation and cache", () => {
  assert.deepEqual(translateRegexp("(?i)abc"), { source: "abc", flags: "iv" });
  assert.deepEqual(translateRegexp("a(?i)bc"), { source: "a(?i:bc)", flags: "v" });
  assert.deepEqual(translateRegexp("a.c"), { source: "a[^\\n]c", flags: "v" });
  assert.equal(compileRegexp("x+y"), compileRegexp("x+y"));
});
