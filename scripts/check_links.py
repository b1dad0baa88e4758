#!/usr/bin/env python3
"""Every relative link and anchor in the repository's Markdown resolves.

  python3 scripts/check_links.py [ROOT]

ROOT defaults to the repository holding this script. The files checked are the tracked *.md
files (`git ls-files`; without git, every *.md under ROOT outside hidden and build folders).
For each inline link or image `[text](target)`, and each reference definition `[id]: target`:

- links with a scheme (http:, https:, mailto:, ...) are skipped;
- the path, relative to the linking file, must name a file or folder inside ROOT;
- `#anchor` (alone: the same file) must name a heading of the target Markdown file, by
  GitHub's rule (the heading's text lowercased, punctuation other than - and _ dropped,
  each space a -, a repeated slug given -1, -2, ...), or an explicit <a id=...> / <a name=...>;
  in a file that is not Markdown only GitHub's line anchors (#L10, #L10-L20) are accepted.

Fenced code blocks and inline code spans are not read. Exit 1 with every broken link listed
as FILE:LINE: TARGET: why; exit 0 with a count otherwise.
"""
import os
import re
import subprocess
import sys
import urllib.parse

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
EXPLICIT = re.compile(r"<a\s+[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
LINE_ANCHOR = re.compile(r"^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$")
SKIP_DIRS = re.compile(r"^(\..*|build.*|results|node_modules)$")


def code_spans_removed(line):
    """The line with inline code spans (`...`, ``...``) blanked out."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "`":
            j = i
            while j < len(line) and line[j] == "`":
                j += 1
            ticks = line[i:j]
            end = line.find(ticks, j)
            if end < 0:
                out.append(line[i:j])
                i = j
                continue
            out.append(" " * (end + len(ticks) - i))
            i = end + len(ticks)
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield number, line


def heading_text(raw):
    """What GitHub renders of a heading's Markdown, as plain text."""
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", raw)        # images: their alt text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)        # links: their text
    text = re.sub(r"<[^>]+>", "", text)                         # HTML tags
    text = re.sub(r"`+", "", text)                              # code spans keep their text
    text = re.sub(r"(\*\*|__|\*|(?<!\w)_|_(?!\w)|~~)", "", text)  # emphasis markers
    return text.strip()


def slug(text):
    """GitHub's anchor for a heading's text (github-slugger)."""
    text = text.lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found, seen = set(), {}
    for _, line in prose_lines(text):
        m = ATX.match(line)
        if m:
            base = slug(heading_text(m.group(2) or ""))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        for explicit in EXPLICIT.findall(line):
            found.add(explicit)
    cache[path] = found
    return found


def markdown_files(root):
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "*.md"],
                                capture_output=True, check=True).stdout.decode()
        files = [f for f in listed.split("\0") if f]
        if files:
            return sorted(files)
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for here, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not SKIP_DIRS.match(d)]
        files += [os.path.relpath(os.path.join(here, n), root) for n in names if n.endswith(".md")]
    return sorted(files)


def check_target(root, source, target):
    """Why TARGET, linked from SOURCE (a path relative to ROOT), does not resolve; None if it does."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if SCHEME.match(target):
        return None
    path, _, anchor = target.partition("#")
    path = urllib.parse.unquote(path)
    anchor = urllib.parse.unquote(anchor)
    if path:
        if path.startswith("/"):
            return "an absolute path (GitHub reads it from the site's root)"
        resolved = os.path.normpath(os.path.join(root, os.path.dirname(source), path))
    else:
        resolved = os.path.join(root, source)
    if os.path.relpath(resolved, root).startswith(".."):
        return "outside the repository"
    if not os.path.exists(resolved):
        return "no such file"
    if not anchor:
        return None
    if os.path.isdir(resolved):
        return "an anchor on a folder"
    if not resolved.endswith(".md"):
        return None if LINE_ANCHOR.match(anchor) else "an anchor in a file that is not Markdown"
    if anchor not in anchors_of(resolved):
        return f"no heading or <a id> gives #{anchor} in {os.path.relpath(resolved, root)}"
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                           else os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    broken, links = [], 0
    for source in markdown_files(root):
        with open(os.path.join(root, source), encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            line = code_spans_removed(line)
            targets = [m.group(1) for m in INLINE.finditer(line)]
            ref = REFDEF.match(line)
            if ref:
                targets.append(ref.group(1))
            for target in targets:
                links += 1
                why = check_target(root, source, target)
                if why:
                    broken.append(f"{source}:{number}: {target}: {why}")
    for b in broken:
        print(b)
    if broken:
        print(f"{len(broken)} of {links} links broken", file=sys.stderr)
        return 1
    print(f"{links} links resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
