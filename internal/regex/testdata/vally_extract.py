# Generates vally/patterns.json: every JavaScript pattern the real Vally specs under
# ../../../cmd/skillgate/testdata/vally and /work/shared/fixtures/vally hold (output-, transcript-
# and file-matches graders, tool-calls fields), with the flags Vally gives it (a leading (?i),
# (?m), (?s) becomes a flag), and texts from the same repositories: stimulus prompts and turns,
# and rubric lines (at most 400, taken evenly). Run from this folder:
# python3 vally_extract.py > vally/patterns.json; then node vally_verdicts.js.
import glob, json, os, re, sys, yaml

roots = ['../../../cmd/skillgate/testdata/vally', '/work/shared/fixtures/vally']
patterns, texts = {}, {}

def add_pattern(p, repo):
    if not isinstance(p, str) or not p:
        return
    m = re.match(r'^\(\?([ims]+)\)', p)
    flags = ''.join(sorted(set(m.group(1)))) if m else ''
    body = p[len(m.group(0)):] if m else p
    patterns.setdefault((body, flags), repo)

def walk_graders(gs, repo):
    for g in gs or []:
        if not isinstance(g, dict):
            continue
        cfg = g.get('config') or {}
        if not isinstance(cfg, dict):
            continue
        if g.get('type', '').endswith('matches'):
            add_pattern(cfg.get('pattern'), repo)
        if g.get('type') == 'tool-calls':
            for key in ('required', 'disallowed', 'sequence'):
                for item in cfg.get(key) or []:
                    if isinstance(item, dict):
                        for f in ('name', 'command', 'path', 'pattern'):
                            add_pattern(item.get(f), repo)
                        for v in (item.get('args') or {}).values():
                            add_pattern(v, repo)

def add_text(t, repo):
    if isinstance(t, str) and t.strip():
        texts.setdefault(t, repo)

for root in roots:
    for path in sorted(glob.glob(root + '/**/*.y*ml', recursive=True)):
        repo = os.path.relpath(path, root).split(os.sep)[0]
        try:
            docs = list(yaml.safe_load_all(open(path, encoding='utf-8')))
        except Exception:
            continue
        for d in docs:
            if not isinstance(d, dict) or 'stimuli' not in d:
                continue
            walk_graders(d.get('graders'), repo)
            for s in d.get('stimuli') or []:
                if not isinstance(s, dict):
                    continue
                walk_graders(s.get('graders'), repo)
                prompts = [s.get('prompt')] + list(s.get('turns') or [])
                for p in prompts:
                    if isinstance(p, dict):
                        p = p.get('prompt')
                    add_text(p, repo)
                for r in s.get('rubric') or []:
                    add_text(r, repo)

items = list(texts.items())
if len(items) > 400:
    step = len(items) / 400
    items = [items[int(i * step)] for i in range(400)]
print(json.dumps({
    'patterns': [{'pattern': p, 'flags': f, 'repo': r} for (p, f), r in sorted(patterns.items())],
    'texts': [{'text': t, 'repo': r} for t, r in items],
}, ensure_ascii=False, indent=0))
