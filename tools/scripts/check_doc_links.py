#!/usr/bin/env python3
"""Check the relative links of the morf book (docs/, an mdBook).

Reads docs/SUMMARY.md, then every page it lists, and checks each relative Markdown link,
inline `[text](target)` or `![alt](target)` and reference definitions `[id]: target`, outside
code blocks and code spans:

- the target file exists (resolved from the page's folder);
- it stays inside docs/ (mdBook publishes only docs/, so `../README.md` is broken in the book);
- a `.md` target is a page listed in SUMMARY.md (mdBook renders no other Markdown file);
- a `#anchor`, on its own or after a `.md` target, names a heading of that page, with the ids
  mdBook 0.5 gives headings (lower-cased text, whitespace to `-`, only alphanumerics, `_` and `-`
  kept, `-1`, `-2`, ... for repeats; an explicit `{#id}` wins).

The pages also name files of the repository in code spans, by their path from the repository
root (the raw data in `docs/perf-data/...`, which is not a page of the book): a code span that is
one such path starting with `docs/` must exist too (`*` globs allowed).

External links (`http:`, `https:`, `mailto:`, ...) are not checked. Works on the Markdown
sources, so it needs no build. Exits 1 and lists the broken links, 0 when all resolve.

    python3 tools/scripts/check_doc_links.py [DOCS_DIR]
"""

from __future__ import annotations

import glob
import os
import re
import sys
from pathlib import Path

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HEADING_ID_ATTR = re.compile(r"[ \t]*\{([^}]*)\}[ \t]*$")
REF_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>]*>|\S+)")


def strip_code(lines: list[str]) -> list[str]:
    """Blank out fenced code blocks (keeping line numbers); code spans are handled later."""
    out = []
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                out.append("")
                continue
            out.append(line)
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            out.append("")
    return out


def blank_code_spans(text: str) -> str:
    """Replace the contents of inline code spans with spaces (same length, newlines kept)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        if text[i] == "\\" and i + 1 < n:
            out.append(text[i : i + 2])
            i += 2
            continue
        if text[i] == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            ticks = text[i:j]
            close = text.find(ticks, j)
            # The closing run must be exactly as long.
            while close != -1 and close + len(ticks) < n and text[close + len(ticks)] == "`":
                k = close
                while k < n and text[k] == "`":
                    k += 1
                close = text.find(ticks, k)
            if close == -1:
                out.append(ticks)
                i = j
                continue
            body = text[j:close]
            out.append(ticks + re.sub(r"[^\n]", " ", body) + ticks)
            i = close + len(ticks)
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def heading_text(raw: str) -> str:
    """The plain text of a heading's inline Markdown, as mdBook sees it for the id.

    mdBook 0.5 renders with smart punctuation on (the default, `output.html.smart-punctuation`),
    so outside code spans a run of two or more `-` becomes en and em dashes, which the id drops.
    """
    t = raw
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", t)  # links and images: their text
    t = re.sub(r"!?\[([^\]]*)\]\[[^\]]*\]", r"\1", t)
    t = re.sub(r"<[^>]+>", "", t)  # inline HTML tags
    parts = re.split(r"((`+).*?\2)", t)
    out = []
    i = 0
    while i < len(parts):
        seg = parts[i]
        if i % 3 == 0:  # outside code spans
            seg = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", seg)  # backslash escapes
            seg = re.sub(r"(\*{1,3}|_{1,3})(\S(?:.*?\S)?)\1", r"\2", seg)  # emphasis
            seg = re.sub(r"-{2,}", "\u2013", seg)  # smart punctuation: dashes
            out.append(seg)
            i += 1
        else:  # a code span, its text verbatim (one space stripped from each side when both)
            ticks = parts[i + 1]
            body = seg[len(ticks) : -len(ticks)]
            if body.startswith(" ") and body.endswith(" ") and body.strip():
                body = body[1:-1]
            out.append(body)
            i += 2
    return "".join(out)


def id_from_content(content: str) -> str:
    """mdBook 0.5's `id_from_content` (mdbook-html/src/utils.rs)."""
    out = []
    for ch in content.strip().lower():
        if ch.isalnum() or ch in "_-":
            out.append(ch)
        elif ch.isspace():
            out.append("-")
    return "".join(out)


def heading_ids(path: Path) -> set[str]:
    lines = strip_code(path.read_text(encoding="utf-8").splitlines())
    used: set[str] = set()
    ids: set[str] = set()

    def add(raw: str) -> None:
        explicit = None
        m = HEADING_ID_ATTR.search(raw)
        if m:
            attrs = m.group(1).split()
            for a in attrs:
                if a.startswith("#"):
                    explicit = a[1:]
            raw = raw[: m.start()]
        base = explicit if explicit is not None else id_from_content(heading_text(raw))
        hid = base
        counter = 0
        while hid in used:
            counter += 1
            hid = f"{base}-{counter}"
        used.add(hid)
        ids.add(hid)

    prev = ""
    for line in lines:
        m = ATX_HEADING.match(line)
        if m:
            add(m.group(2) or "")
        elif SETEXT_UNDERLINE.match(line) and prev.strip() and not ATX_HEADING.match(prev) and not prev.startswith(("    ", "\t", ">", "|", "-", "*", "+")):
            add(prev.strip())
        prev = line
    return ids


def find_links(text: str):
    """Yield (line number, target) for the inline links and reference definitions of a page."""
    lines = strip_code(text.splitlines())
    body = blank_code_spans("\n".join(lines))
    for lineno, line in enumerate(body.splitlines(), 1):
        m = REF_DEF.match(line)
        if m and not m.group(1).startswith("^"):
            yield lineno, m.group(2).strip("<>")
    # Inline links may span lines: `[text\nmore](target)`. Find `](`, then the balanced target.
    i = 0
    while True:
        i = body.find("](", i)
        if i == -1:
            break
        j = i + 2
        depth = 1
        while j < len(body) and depth:
            c = body[j]
            if c == "\\":
                j += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif c == "\n" and body[j + 1 : j + 2] == "\n":
                break
            j += 1
        if depth == 0:
            inner = body[i + 2 : j - 1].strip()
            if inner.startswith("<"):
                target = inner[1 : inner.find(">")] if ">" in inner else inner[1:]
            else:
                target = inner.split()[0] if inner.split() else ""
            yield body.count("\n", 0, i) + 1, target
        i += 2


def summary_pages(docs: Path) -> list[Path]:
    text = blank_code_spans("\n".join(strip_code((docs / "SUMMARY.md").read_text(encoding="utf-8").splitlines())))
    pages = []
    for _, target in find_links(text):
        if target and not SCHEME.match(target):
            pages.append((docs / target.split("#")[0]).resolve())
    return pages


def main() -> int:
    default_docs = Path(__file__).resolve().parents[2] / "docs"
    docs = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else default_docs
    repo = docs.parent
    if not (docs / "SUMMARY.md").is_file():
        print(f"check_doc_links: no SUMMARY.md in {docs}", file=sys.stderr)
        return 2
    pages = summary_pages(docs)
    listed = set(pages)
    broken: list[str] = []
    for p in pages:
        if not p.is_file():
            broken.append(f"SUMMARY.md: lists {os.path.relpath(p, docs)}, which does not exist")
    ids_cache: dict[Path, set[str]] = {}

    def ids_of(p: Path) -> set[str]:
        if p not in ids_cache:
            ids_cache[p] = heading_ids(p)
        return ids_cache[p]

    checked = 0
    paths_checked = 0
    for page in [docs / "SUMMARY.md"] + [p for p in pages if p.is_file()]:
        rel_page = os.path.relpath(page, docs)
        for lineno, target in sorted(find_links(page.read_text(encoding="utf-8"))):
            if not target or SCHEME.match(target) or target.startswith("//"):
                continue
            checked += 1
            where = f"{rel_page}:{lineno}: ({target})"
            path_part, _, anchor = target.partition("#")
            path_part = path_part.split("?")[0]
            if path_part:
                if path_part.startswith("/"):
                    dest = (docs / path_part.lstrip("/")).resolve()
                else:
                    dest = (page.parent / path_part).resolve()
            else:
                dest = page.resolve()
            if not dest.exists():
                broken.append(f"{where} no such file: {os.path.relpath(dest, docs)}")
                continue
            if docs != dest and docs not in dest.parents:
                broken.append(f"{where} leaves docs/: the book does not publish {os.path.relpath(dest, docs)}")
                continue
            if dest.suffix == ".md" and dest not in listed and dest != docs / "SUMMARY.md":
                broken.append(f"{where} {os.path.relpath(dest, docs)} is not a page of the book (not in SUMMARY.md)")
                continue
            if anchor and dest.suffix == ".md" and anchor not in ids_of(dest):
                broken.append(f"{where} no heading with id #{anchor} in {os.path.relpath(dest, docs)}")
        # Repository paths under docs/ named in code spans (outside code blocks).
        text = "\n".join(strip_code(page.read_text(encoding="utf-8").splitlines()))
        for m in re.finditer(r"(?<!`)`(docs/[^`\s]+)`(?!`)", text):
            path = m.group(1)
            paths_checked += 1
            if not glob.glob(str(repo / path)):
                lineno = text.count("\n", 0, m.start()) + 1
                broken.append(f"{rel_page}:{lineno}: `{path}` names no file or folder of the repository")
    if broken:
        print(
            f"check_doc_links: {len(broken)} broken of {checked} relative links and {paths_checked} "
            f"`docs/...` paths in {len(pages)} pages:"
        )
        for b in broken:
            print("  " + b)
        return 1
    print(
        f"check_doc_links: {checked} relative links and {paths_checked} `docs/...` paths "
        f"in {len(pages)} pages, all resolve"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
