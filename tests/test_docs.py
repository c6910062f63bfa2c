"""The documentation holds together (issue 28): every relative link in README.md and docs/**/*.md
names a file that exists, every ``#anchor`` into a markdown file names one of its headings (by
GitHub's heading-slug rules), the README stays short, and the documents the page links to exist
and ship with the site (``build.py dist`` copies docs/*.md).

Pure Python: the markdown is read as text, nothing is rendered. Each check is a function of text
or files, so the tests at the bottom prove that it catches what it is meant to catch.
"""

import importlib.util
import re
import unicodedata
from pathlib import Path

import pytest

from hiddenchess.app.guide import MORE, guide_ids, guide_page

ROOT = Path(__file__).resolve().parents[1]
#: The README is read in five minutes: about 200 lines, never 220.
README_MAX_LINES = 220


def _load_build():
    spec = importlib.util.spec_from_file_location("hiddenchess_build_docs", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- reading markdown ----------------------------------------------------------------------------
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
#: An inline link or image: [text](target "title") / ![alt](target); the text may hold one level
#: of brackets (an image inside a link).
_INLINE_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
_HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']*)["']""", re.I)
_HTML_ID = re.compile(r"""<[a-z][^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.I)
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


def prose_lines(text: str):
    """``(line number, line)`` of the lines outside fenced code blocks and indented code."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = _FENCE.match(line)
        if fence:
            if match and match.group(1) == fence:
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        if line.startswith("    ") and not line.lstrip().startswith(("-", "*", "+")) \
                and not re.match(r"\s*\d+\.", line) and _indented_code(text, number):
            continue
        yield number, line


def _indented_code(text: str, number: int) -> bool:
    """Whether line ``number`` (indented four spaces) is an indented code block: it follows a blank
    line or another such line, and is not the continuation of a list item."""
    lines = text.splitlines()
    i = number - 2
    while i >= 0 and lines[i].startswith("    "):
        i -= 1
    return i < 0 or lines[i].strip() == "" and (i == 0 or not _in_list(lines, i))


def _in_list(lines, blank: int) -> bool:
    """Whether the paragraph before the blank line ``blank`` is part of a list."""
    i = blank - 1
    while i >= 0 and lines[i].strip():
        if re.match(r"\s*([-*+]|\d+\.)\s", lines[i]):
            return True
        i -= 1
    return False


def links(text: str) -> list:
    """``(line number, target)`` of every link and image in ``text``: inline, reference
    definitions and HTML ``href``/``src``; code spans and code blocks are skipped."""
    found = []
    for number, line in prose_lines(text):
        bare = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in _INLINE_LINK.finditer(bare):
            found.extend((number, inner.group(2)) for inner in _INLINE_LINK.finditer(match.group(1)))
            found.append((number, match.group(2)))
        for pattern in (_REF_DEF, _HTML_LINK):
            found.extend((number, match.group(1)) for match in pattern.finditer(bare))
    return found


def heading_text(raw: str) -> str:
    """A heading's text as GitHub renders it: links keep their text, code spans their content,
    emphasis and HTML tags go."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    text = _CODE_SPAN.sub(lambda m: m.group(2).strip(), text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", text)
    text = re.sub(r"(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)", r"\1", text)
    return text


def slug(text: str) -> str:
    """GitHub's anchor for a heading (github-slugger): lower case, every character that is not a
    letter, a mark, a digit, ``_``, a space or ``-`` dropped, then each space a hyphen.

    >>> slug("Quick play and one-click invites: public relays, no server of ours")
    'quick-play-and-one-click-invites-public-relays-no-server-of-ours'
    >>> slug("The computer in the browser (bench/ai_browser.py)")
    'the-computer-in-the-browser-benchai_browserpy'
    """
    kept = "".join(c for c in text.lower()
                   if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def anchors(text: str) -> set:
    """Every ``#anchor`` a markdown file offers: its headings' slugs (a repeated slug gets ``-1``,
    ``-2``, ... as on GitHub) and the ``id``/``name`` of its HTML elements."""
    seen: dict = {}
    out = set()
    for _, line in prose_lines(text):
        match = _ATX.match(line)
        if match:
            base = slug(heading_text(match.group(2)))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
        out.update(m.group(1) for m in _HTML_ID.finditer(line))
    return out


# --- checking ------------------------------------------------------------------------------------
def link_errors(doc: Path, root: Path) -> list:
    """What is wrong with the relative links of the markdown file ``doc`` (inside ``root``): a
    missing file, a path leaving ``root``, or an ``#anchor`` no heading of the target makes."""
    errors = []
    for number, target in links(doc.read_text(encoding="utf-8")):
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            continue  # an absolute URL (https:, mailto:) is not ours to check
        where = f"{doc.relative_to(root).as_posix()}:{number}: {target}"
        path_part, _, anchor = target.partition("#")
        path_part = path_part.split("?")[0]
        if path_part.startswith("/"):
            errors.append(f"{where}: use a relative link (GitHub resolves / from the host)")
            continue
        dest = (doc.parent / path_part).resolve() if path_part else doc.resolve()
        if not dest.is_relative_to(root.resolve()):
            errors.append(f"{where}: leaves the repository")
            continue
        if not dest.exists():
            errors.append(f"{where}: no such file")
            continue
        # GitHub's file names are case-sensitive even where the disk's are not.
        if path_part and dest.name not in {p.name for p in dest.parent.iterdir()}:
            errors.append(f"{where}: no file of that exact name")
            continue
        if anchor and dest.suffix.lower() == ".md":
            if anchor not in anchors(dest.read_text(encoding="utf-8")):
                errors.append(f"{where}: {dest.name} has no heading with the anchor #{anchor}")
    return errors


def documents(root: Path) -> list:
    """README.md and every markdown file under docs/."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def page_doc_links(root: Path) -> list:
    """The documents the page links to: ``docs/....md`` in index.html, the page's modules and the
    rules pages (``guide_page(...)["more"]``), each relative to the page."""
    found = set(re.findall(r"""["'](docs/[\w./-]+\.md(?:#[\w-]+)?)["']""",
                           (root / "index.html").read_text(encoding="utf-8")))
    for script in (root / "assets").rglob("*.js"):
        if "vendor" in script.relative_to(root / "assets").parts:
            continue
        found.update(re.findall(r"""["'](docs/[\w./-]+\.md(?:#[\w-]+)?)["']""",
                                script.read_text(encoding="utf-8")))
    for variant_id in guide_ids():
        found.update(m["href"] for m in guide_page(variant_id)["more"])
    return sorted(found)


# --- the repository ------------------------------------------------------------------------------
@pytest.mark.parametrize("doc", documents(ROOT), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(doc):
    assert link_errors(doc, ROOT) == []


def test_the_readme_is_read_in_five_minutes():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, f"README.md has {len(lines)} lines: move detail into docs/"


def test_every_document_is_listed_in_the_docs_index():
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    listed = {target.partition("#")[0] for _, target in links(index)}
    topics = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert topics <= listed, f"docs/README.md does not list {sorted(topics - listed)}"


def test_the_pages_links_to_documents_resolve_and_ship_with_the_site():
    linked = page_doc_links(ROOT)
    # The rules pages and the friend card's local-address note link to documents.
    assert {href for _, href in MORE} | {"docs/DEPLOY.md"} <= set(linked)
    shipped = set(_load_build().site_files(ROOT))
    for href in linked:
        path, _, anchor = href.partition("#")
        assert (ROOT / path).is_file(), href
        assert path in shipped, f"{href}: build.py dist does not ship it"
        if anchor:
            assert anchor in anchors((ROOT / path).read_text(encoding="utf-8")), href


def test_the_site_ships_the_documents_but_not_their_images():
    shipped = set(_load_build().site_files(ROOT))
    docs = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    assert docs and docs <= shipped
    assert not any(rel.startswith("docs/") and rel not in docs for rel in shipped)
    assert "README.md" not in shipped


# --- the checks catch what they should -----------------------------------------------------------
def test_slugs_follow_github():
    assert slug(heading_text("Move generation (bench/perft.py)")) == "move-generation-benchperftpy"
    assert slug(heading_text("Hidden Identity: tabletop rules")) == "hidden-identity-tabletop-rules"
    assert slug(heading_text("The `peer.js` **adapter** & [its link](x.md)")) == "the-peerjs-adapter--its-link"
    assert slug(heading_text("Set-up: two commands")) == "set-up-two-commands"
    assert slug(heading_text("Échecs à l'aveugle")) == "échecs-à-laveugle"
    assert slug(heading_text("snake_case _emphasis_")) == "snake_case-emphasis"
    text = "# Notes\n## Figures\n## Figures\n```\n## not a heading\n```\n<a id=\"here\"></a>\n"
    assert anchors(text) == {"notes", "figures", "figures-1", "here"}


def test_links_skip_code_and_read_every_form():
    text = ("See [a](a.md) and ![pic](img/p.png) and <a href=\"b.md#x\">b</a>.\n"
            "Not `[c](c.md)`.\n\n```\n[d](d.md)\n```\n\n[ref]: e.md\n"
            "[![badge](f.svg)](g.md)\n")
    assert [t for _, t in links(text)] == ["a.md", "img/p.png", "b.md#x", "e.md", "f.svg", "g.md"]


def test_a_broken_link_or_anchor_fails(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "A.md").write_text("# A\n\n## Two words\n\ntext\n")
    (tmp_path / "README.md").write_text(
        "# R\n\n[ok](docs/A.md#two-words) [top](#r) [web](https://example.org/x.md)\n"
        "[gone](docs/B.md) [bad anchor](docs/A.md#three-words) [case](docs/a.md)\n"
        "[out](../elsewhere.md) [self](#nowhere)\n")
    errors = link_errors(tmp_path / "README.md", tmp_path)
    assert [e.split(": ", 2)[1] for e in errors] == [
        "docs/B.md", "docs/A.md#three-words", "docs/a.md", "../elsewhere.md", "#nowhere"], errors
    assert "no such file" in errors[0] and "no heading with the anchor #three-words" in errors[1]
    # and the same file with its links mended passes
    (tmp_path / "README.md").write_text("# R\n\n[ok](docs/A.md#two-words) [top](#r)\n")
    assert link_errors(tmp_path / "README.md", tmp_path) == []
