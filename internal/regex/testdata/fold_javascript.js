// Generates fold_javascript.json: for every BMP character c whose case-insensitive match set
// (new RegExp(c, 'i'), no `u` flag) is not {c}, the BMP characters it matches, and the \w, \d,
// \s and `.` sets as ranges. Run: node fold_javascript.js > fold_javascript.json (the Go tests
// never run node).
const parent = new Map();
const find = (x) => { while (parent.has(x) && parent.get(x) !== x) x = parent.get(x); return x; };
const union = (a, b) => { const ra = find(a), rb = find(b); if (ra !== rb) parent.set(ra, rb); };
const esc = (c) => '\\u' + c.toString(16).padStart(4, '0');
for (let c = 0; c < 0x10000; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue;
  const s = String.fromCharCode(c);
  for (const m of [s.toLowerCase(), s.toUpperCase()]) {
    if (m.length === 1 && m !== s) union(c, m.charCodeAt(0));
  }
}
const comps = new Map();
for (const [a, b] of parent) for (const c of [a, b]) {
  const r = find(c);
  if (!comps.has(r)) comps.set(r, new Set());
  comps.get(r).add(c);
}
const fold = {};
for (const members of comps.values()) {
  for (const c of members) {
    const re = new RegExp('^' + esc(c) + '$', 'i');
    const got = [...members].filter((d) => re.test(String.fromCharCode(d))).sort((x, y) => x - y);
    if (!(got.length === 1 && got[0] === c)) fold[c] = got;
  }
}
const ranges = (re) => {
  const out = [];
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    if (re.test(String.fromCharCode(c))) {
      if (out.length && out[out.length - 1][1] === c - 1) out[out.length - 1][1] = c;
      else out.push([c, c]);
    }
  }
  return out;
};
console.log(JSON.stringify({
  node: process.version, unicode: process.versions.unicode,
  fold, w: ranges(/^\w$/), d: ranges(/^\d$/), s: ranges(/^\s$/), dot: ranges(/^.$/),
  wi: ranges(/^\w$/i), Wi: ranges(/^\W$/i),
}));
