# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""RFC 5424's STRUCTURED-DATA, parsed strictly (t_syslog.py, t_golden.py)."""
import re


def strict_sd(s):
    """RFC 5424's STRUCTURED-DATA at the start of @s, parsed strictly: '"',
    '\\' and ']' in a PARAM-VALUE must be escaped, and nothing else may be.
    Returns the elements ({SD-ID: {PARAM-NAME: value}}) and where they end."""
    els, i = {}, 0
    while i < len(s) and s[i] == "[":
        m = re.match(r'\[([^ =\]"]{1,32})', s[i:])
        if not m:
            raise ValueError("bad SD-ID at %d" % i)
        sdid, i, params = m.group(1), i + m.end(), {}
        while s[i] == " ":
            m = re.match(r' ([^ =\]"]{1,32})="', s[i:])
            if not m:
                raise ValueError("bad PARAM-NAME at %d" % i)
            name, i, v = m.group(1), i + m.end(), []
            while s[i] != '"':
                if s[i] == "\\":
                    if s[i + 1] not in '"\\]':
                        raise ValueError("a backslash escapes nothing at %d" % i)
                    v.append(s[i + 1])
                    i += 2
                    continue
                if s[i] == "]":
                    raise ValueError("an unescaped ] at %d" % i)
                v.append(s[i])
                i += 1
            params[name] = "".join(v)
            i += 1
        if s[i] != "]":
            raise ValueError("an SD-ELEMENT not closed at %d" % i)
        els[sdid] = params
        i += 1
    return els, i
