// Generates match_javascript.json from cases.json: for each JavaScript pattern and flags,
// whether new RegExp(pattern, flags) accepts it and, for each text, the first match's text and
// groups and (without astral characters in the text) every match's text with the `g` flag.
// Run: node match_javascript.js > match_javascript.json
const cases = require('./cases.json');
const out = [];
for (const [pattern, flags] of cases.javascript) {
  const rec = { pattern, flags };
  let re;
  try { re = new RegExp(pattern, flags); } catch (e) { rec.error = e.message; out.push(rec); continue; }
  const g = new RegExp(pattern, flags + 'g');
  rec.results = cases.texts.map((t) => {
    const m = re.exec(t);
    const first = m === null ? null : { text: m[0], groups: m.slice(1).map((x) => (x === undefined ? null : x)) };
    const astral = /[\uD800-\uDFFF]/.test(t);
    return { first, all: astral ? null : [...t.matchAll(g)].map((x) => x[0]) };
  });
  out.push(rec);
}
console.log(JSON.stringify(out, null, 0));
