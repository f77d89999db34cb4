"""The documentation's links and the sections other files cite by name resolve.

Docs are split and renamed over time; a link to a moved file, an anchor to a renamed heading or a
comment citing `docs/benchmark.md, "Figures behind the code's comments"` after the heading went
would leave a reader at a dead end. Every relative Markdown link in the repository's tracked
files must name an existing file, and its `#anchor` a heading there (GitHub's slugs); every
`path.md, "Section"` or `path.md ("Section")` a source, script or doc cites must name a heading
of that file, or the words one of its paragraphs starts with."""
import os
import re
import subprocess

import pytest

REPO = os.environ.get("OSF_REPO") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))

FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
# `docs/x.md, "Section"`, `docs/x.md ("Section")`, `docs/x.md, section "Section"`
CITATION = re.compile(r"([\w./-]+\.md)\)?(?:,|\s\()\s*(?:section\s+)?\"([^\"]{3,100})\"")
# A citation broken over two comment lines: the line break and the comment marker are a space.
COMMENT_BREAK = re.compile(r"\s*\n\s*(?://|#)?\s*")


def tracked_files(pattern_suffixes):
    """The repository's files (git's list; without git, the tree minus builds and packages)."""
    listed = subprocess.run(["git", "-C", REPO, "ls-files"], capture_output=True, text=True)
    if listed.returncode == 0:
        files = listed.stdout.split("\n")
    else:
        files = []
        for root, dirs, names in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in (".git", "build", "node_modules", "bench-results")]
            files += [os.path.relpath(os.path.join(root, n), REPO) for n in names]
    return [f for f in files if f and f.endswith(pattern_suffixes) and "node_modules" not in f]


def without_code(text):
    """Markdown with fenced blocks and inline code removed: links there are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    for m in HEADING.finditer(FENCE.sub("", read(path))):
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    return result


def headings(path):
    return [m.group(2).replace("`", "") for m in HEADING.finditer(FENCE.sub("", read(path)))]


def cited_places(path):
    """What a citation may name: a heading, or the words a paragraph, list item or table row
    starts with (a run-in head such as `**Memory.**` or `Exit codes (...)`)."""
    places = headings(path)
    for line in read(path).split("\n"):
        line = re.sub(r"^\s*(?:[-*|]\s*|\d+\.\s+)?", "", line).replace("`", "").replace("**", "")
        if line and not line.startswith("#"):
            places.append(line)
    return places


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def broken_links(md_file):
    """Each relative link of one Markdown file that names no file, or no heading there."""
    problems = []
    text = without_code(read(md_file))
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
            continue
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(md_file), path)) if path else md_file
        if not os.path.exists(resolved):
            problems.append(f"{target}: no such file")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            problems.append(f"{target}: no heading with that anchor")
    return problems


@pytest.mark.parametrize("heading,expected", [
    ("Figures behind the code's comments", "figures-behind-the-codes-comments"),
    ("The reviewer's report of a 1,000,000-line log", "the-reviewers-report-of-a-1000000-line-log"),
    ("Lifetime, exec --timeout, suspend and resume", "lifetime-exec---timeout-suspend-and-resume"),
    ("Metrics (`/metrics` on the admin port)", "metrics-metrics-on-the-admin-port"),
    ("Raw TCP: SSH, databases, SOCKS5", "raw-tcp-ssh-databases-socks5"),
    ("The image's tools", "the-images-tools"),
])
def test_slug_is_githubs(heading, expected):
    assert slug(heading) == expected


def test_a_broken_link_and_a_broken_anchor_are_reported(tmp_path):
    (tmp_path / "b.md").write_text("# Here\n\n## Two words\n")
    a = tmp_path / "a.md"
    a.write_text("[ok](b.md#two-words) [gone](c.md) [moved](b.md#three-words) "
                 "`[code](d.md)`\n```\n[fenced](e.md)\n```\n[web](https://example.com/x.md)\n")
    assert broken_links(str(a)) == ["c.md: no such file", "b.md#three-words: no heading with that anchor"]


def test_every_relative_link_in_the_docs_resolves():
    problems = []
    for md in tracked_files((".md",)):
        problems += [f"{md}: {p}" for p in broken_links(os.path.join(REPO, md))]
    assert problems == []


def test_every_section_cited_by_name_exists():
    """A citation names a file from the repository's root, or from the citing file's folder,
    and a heading of it or the words a paragraph of it starts with."""
    problems = []
    for f in tracked_files((".md", ".cpp", ".hpp", ".py", ".sh", ".txt", ".cmake", ".yaml", ".json")):
        if f.startswith("docs/archive/"):
            continue  # history, as it was written
        text = read(os.path.join(REPO, f))
        for m in CITATION.finditer(text):
            cited, section = m.group(1), COMMENT_BREAK.sub(" ", m.group(2))
            candidates = [os.path.join(REPO, cited),
                          os.path.join(REPO, os.path.dirname(f), cited)]
            existing = [c for c in candidates if os.path.isfile(c)]
            if not existing:
                continue  # a file named in prose only (another repository's, an example's)
            if not any(p.startswith(section) or (p in headings(c) and section.startswith(p))
                       for c in existing for p in cited_places(c)):
                problems.append(f'{f}: {cited}, "{section}": no such heading')
    assert problems == []
