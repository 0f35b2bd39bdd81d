"""Griffe extension for the API reference: the docstrings' reStructuredText habits as
Markdown, so mkdocstrings renders them as the source reads.

- a simple table (rows between ``====  ====`` rules, at the docstring's own indentation)
  becomes a fenced text block, so its columns stay aligned;
- a role, ``:class:`~pkg.mod.Name``` / ``:func:`name``` / ``:mod:`...``` (and ``meth``,
  ``attr``, ``data``, ``exc``, ``obj``), becomes code: ```Name``` / ```name```;
- a paragraph that ends in ``::`` before an indented block ends in ``:`` (the block is
  already code in Markdown).

Loaded by mkdocs.yml (``extensions:`` of the mkdocstrings handler); changes only the text
the site renders, never the code.
"""

from __future__ import annotations

import re

from griffe import Extension

#: a rule line of a simple table: two or more runs of "=" separated by spaces
RULE = re.compile(r"^=+( +=+)+ *$")
#: a cross-reference role; group 2 is the target (a leading "~" shows the last part only)
ROLE = re.compile(r":(?:py:)?(class|func|meth|mod|data|attr|exc|obj):`(~?[^`]+)`")


def _role(m: re.Match) -> str:
    target = m[2]
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def _padded_role(m: re.Match) -> str:
    """A role inside a table: its target, padded to the role's width (columns stay put)."""
    return _role(m).strip("`").ljust(len(m[0]))


def tables_as_text_blocks(lines: list[str]) -> list[str]:
    """Each simple table (unindented; from its first rule line to the last rule line before
    a blank line) fenced as a text block, its roles shown as their targets."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not RULE.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        last = j = i
        while j < len(lines) and lines[j].strip():
            if RULE.match(lines[j]):
                last = j
            j += 1
        if last == i:  # a lone rule: not a table
            out.append(lines[i])
            i += 1
            continue
        if out and out[-1].strip():
            out.append("")
        out += ["```text", *(ROLE.sub(_padded_role, line) for line in lines[i:last + 1]), "```"]
        i = last + 1
    return out


def rst_to_markdown(text: str) -> str:
    """``text`` (a docstring) with its tables, roles and ``::`` paragraphs as Markdown."""
    parts = re.split(r"(```text\n.*?\n```)", "\n".join(tables_as_text_blocks(text.splitlines())),
                     flags=re.S)
    for k in range(0, len(parts), 2):  # outside the text blocks
        parts[k] = ROLE.sub(_role, re.sub(r"(\S)::(\n[ \t]*\n)", r"\1:\2", parts[k]))
    return "".join(parts)


class RstToMarkdown(Extension):
    """Rewrites every docstring of the loaded packages with :func:`rst_to_markdown`."""

    def on_object(self, *, obj, loader, **kwargs) -> None:
        if not getattr(obj, "is_alias", False) and obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(obj.docstring.value)
