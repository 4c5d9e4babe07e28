// Generates vally/verdicts.json from vally/patterns.json: for each pattern (compiled as Vally
// does, new RegExp(pattern, flags)), the indexes of the texts it matches. Run: node vally_verdicts.js
const fs = require('fs');
const { patterns, texts } = JSON.parse(fs.readFileSync('vally/patterns.json', 'utf8'));
const out = patterns.map(({ pattern, flags }) => {
  try {
    const re = new RegExp(pattern, flags);
    const hits = [];
    texts.forEach(({ text }, i) => { if (re.test(text)) hits.push(i); });
    return { pattern, flags, hits };
  } catch (e) {
    return { pattern, flags, error: e.message };
  }
});
fs.writeFileSync('vally/verdicts.json', JSON.stringify(out, null, 0) + '\n');
console.log(out.length + ' patterns × ' + texts.length + ' texts');
