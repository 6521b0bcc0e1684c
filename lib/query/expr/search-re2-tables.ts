// Named character groups of Go's RE2 dialect (regexp/syntax as of Go 1.19,
// which built Zed v1.3), written as bodies of JS `v`-mode character classes.

/** A group: the JS class body of its positive form, and whether it is negated. */
export interface Group {
  readonly body: string;
  readonly negated: boolean;
}

const DIGIT = "0-9";
const SPACE = "\\t\\n\\f\\r\\x20";
const WORD = "0-9A-Z_a-z";

/** Perl escapes: \d \D \s \S \w \W (ASCII only, as in RE2). */
export const perlGroups: ReadonlyMap<string, Group> = new Map([
  ["d", { body: DIGIT, negated: false }],
  ["D", { body: DIGIT, negated: true }],
  ["s", { body: SPACE, negated: false }],
  ["S", { body: SPACE, negated: true }],
  ["w", { body: WORD, negated: false }],
  ["W", { body: WORD, negated: true }],
]);

const posixBodies: [string, string][] = [
  ["alnum", "0-9A-Za-z"],
  ["alpha", "A-Za-z"],
  ["ascii", "\\x00-\\x7f"],
  ["blank", "\\t\\x20"],
  ["cntrl", "\\x00-\\x1f\\x7f"],
  ["digit", DIGIT],
  ["graph", "\\x21-\\x7e"],
  ["lower", "a-z"],
  ["print", "\\x20-\\x7e"],
  ["punct", "\\x21-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7e"],
  ["space", "\\t\\n\\v\\f\\r\\x20"],
  ["upper", "A-Z"],
  ["word", WORD],
  ["xdigit", "0-9A-Fa-f"],
];

/** POSIX classes as written inside brackets: `[:alpha:]`, `[:^alpha:]`. */
export const posixGroups: ReadonlyMap<string, Group> = new Map(
  posixBodies.flatMap(([name, body]): [string, Group][] => [
    [`[:${name}:]`, { body, negated: false }],
    [`[:^${name}:]`, { body, negated: true }],
  ]),
);

// Go's unicode.Categories keys. "C" there is Cc|Cf|Co|Cs (no unassigned code
// points), unlike the Unicode property of the same name.
const categories = new Set([
  "C",
  "Cc",
  "Cf",
  "Co",
  "Cs",
  "L",
  "Ll",
  "Lm",
  "Lo",
  "Lt",
  "Lu",
  "M",
  "Mc",
  "Me",
  "Mn",
  "N",
  "Nd",
  "Nl",
  "No",
  "P",
  "Pc",
  "Pd",
  "Pe",
  "Pf",
  "Pi",
  "Po",
  "Ps",
  "S",
  "Sc",
  "Sk",
  "Sm",
  "So",
  "Z",
  "Zl",
  "Zp",
  "Zs",
]); // deno-fmt-ignore

// Go's unicode.Scripts keys (Unicode 13). Short aliases such as "Latn" are not
// accepted by Go, so they are rejected here even though JS knows them.
const scripts = new Set(
  ("Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak " +
    "Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian " +
    "Caucasian_Albanian Chakma Cham Cherokee Chorasmian Common Coptic Cuneiform Cypriot " +
    "Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan " +
    "Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi " +
    "Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited " +
    "Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kayah_Li " +
    "Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A " +
    "Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen " +
    "Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive " +
    "Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nandinagari " +
    "New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian " +
    "Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian " +
    "Old_Turkic Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician " +
    "Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting " +
    "Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa " +
    "Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta " +
    "Ugaritic Vai Wancho Warang_Citi Yezidi Yi Zanabazar_Square").split(" "),
);

/** All script names Go accepts in \p{...} (exported for tests). */
export const scriptNames: readonly string[] = [...scripts];

/**
 * The JS class body for a Unicode group name as Go spells it (`L`, `Greek`,
 * `Any`), or undefined when Go does not know the name.
 */
export function unicodeGroupBody(name: string): string | undefined {
  if (name === "Any") return "\\u{0}-\\u{10ffff}";
  if (name === "C") return "\\p{Cc}\\p{Cf}\\p{Co}\\p{Cs}";
  if (categories.has(name)) return `\\p{${name}}`;
  if (scripts.has(name)) return `\\p{Script=${name}}`;
  return undefined;
}
