# Generates match_python.json from cases.json: for each Python pattern and flags, whether
# CPython's re compiles it and, for each text, the first match (span in characters and group
# texts) and every match's span (finditer). Run: python3 match_python.py > match_python.json
import json, re
cases = json.load(open('cases.json'))
out = []
for pattern, flags in cases['python']:
    rec = {'pattern': pattern, 'flags': flags}
    try:
        p = re.compile(pattern, flags)
    except re.error as e:
        rec['error'] = str(e)
        out.append(rec)
        continue
    results = []
    for t in cases['texts']:
        m = p.search(t)
        first = None if m is None else {'span': list(m.span()), 'groups': list(m.groups())}
        results.append({'first': first, 'all': [list(x.span()) for x in p.finditer(t)],
                        'match': p.match(t) is not None, 'fullmatch': p.fullmatch(t) is not None})
    rec['results'] = results
    out.append(rec)
print(json.dumps(out, ensure_ascii=False, indent=0))
