#!/usr/bin/env python3
"""Regenerates src/markdown/data/pygments_languages.json: code-block language alias -> the
Pygments lexer name Zulip puts in data-code-language. Needs Pygments (Debian: python3-pygments)."""
import json
from pathlib import Path

from pygments.lexers import get_all_lexers

names = {}
for name, aliases, _filenames, _mimetypes in get_all_lexers():
    for alias in aliases:
        names.setdefault(alias.lower(), name)
out = Path(__file__).resolve().parent.parent / "src/markdown/data/pygments_languages.json"
out.write_text(json.dumps(dict(sorted(names.items())), ensure_ascii=False, indent=0, separators=(",", ":")) + "\n")
