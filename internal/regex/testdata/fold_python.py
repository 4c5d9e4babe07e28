# Generates fold_python.json: for every character c assigned in this Python's Unicode database
# whose case-insensitive match set is not {c}, the characters re.fullmatch('(?i)' + c, d)
# accepts (CPython's re, str patterns), and the \w, \d, \s sets as ranges.
# Run: python3 fold_python.py > fold_python.json (the Go tests never run Python).
import _sre, json, re, sys, unicodedata

def assigned(c):
    return unicodedata.category(chr(c)) != 'Cn'

parent = {}
def find(x):
    while parent.get(x, x) != x:
        x = parent[x]
    return x
def union(a, b):
    ra, rb = find(a), find(b)
    if ra != rb:
        parent[ra] = rb

for c in range(sys.maxunicode + 1):
    if not assigned(c) or 0xd800 <= c <= 0xdfff:
        continue
    s = chr(c)
    for m in (s.lower(), s.upper(), chr(_sre.unicode_tolower(c))):
        if len(m) == 1 and m != s:
            union(c, ord(m))
import re._casefix as cf
for a, bs in cf._EXTRA_CASES.items():
    for b in bs:
        union(a, b)

comps = {}
for c in list(parent.keys()) + list(parent.values()):
    comps.setdefault(find(c), set()).add(c)

fold = {}
for members in comps.values():
    for c in members:
        p = re.compile('(?i)' + re.escape(chr(c)))
        got = sorted(d for d in members if p.fullmatch(chr(d)))
        if got != [c]:
            fold[c] = got

def ranges(pred):
    out = []
    for c in range(sys.maxunicode + 1):
        if 0xd800 <= c <= 0xdfff:
            continue
        if pred(chr(c)):
            if out and out[-1][1] == c - 1:
                out[-1][1] = c
            else:
                out.append([c, c])
    return out

assigned_ranges = ranges(lambda s: unicodedata.category(s) != 'Cn')
print(json.dumps({
    'unicode': unicodedata.unidata_version,
    'assigned': assigned_ranges,
    'fold': {str(k): v for k, v in sorted(fold.items())},
    'w': ranges(lambda s: re.match(r'\w', s) is not None),
    'd': ranges(lambda s: re.match(r'\d', s) is not None),
    's': ranges(lambda s: re.match(r'\s', s) is not None),
}, separators=(',', ':')))
