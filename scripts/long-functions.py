#!/usr/bin/env python3
"""Lists the C++ functions longer than LIMIT lines (from the header's line to
the closing brace), longest first. A brace-counting reader, not a parser: a
function is a brace block opened after ')' outside any other function.
  scripts/long-functions.py LIMIT FILE...
  scripts/long-functions.py 100 $(git ls-files 'adapter/src/*.cpp' 'adapter/src/*.hpp')
"""
import re, sys
def scan(path, limit):
    text = open(path, encoding="utf-8").read()
    out, stack, i, line, last = [], [], 0, 1, 0
    header = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n": line += 1
        if text.startswith("//", i):
            j = text.find("\n", i); i = n if j < 0 else j; continue
        if text.startswith("/*", i):
            j = text.find("*/", i); line += text.count("\n", i, j); i = j + 2; continue
        m = re.match(r'R"([^(]*)\(', text[i:i+20]) if c == "R" and (i == 0 or not text[i-1].isalnum()) else None
        if m:
            end = text.find(")" + m.group(1) + '"', i); line += text.count("\n", i, end); i = end + len(m.group(1)) + 2; continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1; continue
        if c == "{":
            head = "".join(header)
            if all(k in ("namespace", "class") for k, _, _ in stack):
                if re.search(r"\bnamespace\b", head) or "extern \"C\"" in head: kind = "namespace"
                elif re.search(r"\b(class|struct|union|enum)\b", head) and ")" not in head: kind = "class"
                elif ")" in head: kind = "function"
                else: kind = "other"
            else: kind = "inner"
            stack.append((kind, line, " ".join(head.split())[:100]))
            header = []
        elif c == "}":
            if stack:
                kind, start, head = stack.pop()
                if kind == "function" and line - start + 1 > limit:
                    out.append((line - start + 1, path, start, head))
            header = []
        elif c == ";":
            header = []
        else:
            header.append(c)
        i += 1
    return out
if len(sys.argv) < 2:
    sys.exit(__doc__)
limit = int(sys.argv[1]); rows = []
for p in sys.argv[2:]: rows += scan(p, limit)
for length, path, start, head in sorted(rows, reverse=True):
    print(f"{length:4d} {path}:{start} {head.strip()}")
