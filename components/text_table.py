"""Plain-text tables, column widths from their content: what plans and listings print (and goldens hold)."""


def text_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """The header, a rule, then one line per row; columns two spaces apart, no trailing blanks."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line.rstrip(), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return out
