"""A bot that attacks the referee with hostile bytes: ``hostile_lines.py ATTACK``.

It greets and then answers every request with the attack's line (the ``name`` attack
sends its hostile line as the greeting instead). One attack per name; each line is
written whole, with its newline, in one go:

  deep           a reply whose unknown field nests 100,000 arrays deep (over the line cap)
  deep-object    an unknown field of objects nested 10,000 deep (under the cap)
  deep-1000      an unknown field of arrays nested 1,000 deep
  floats         1 MiB of ``1e300`` floats as the action value (over the line cap)
  floats-60k     60 KiB of ``1e300`` floats as the action value (under the cap; each
                 costs msgspec ~30 us to decode)
  nan            an action value ``NaN``, which is not JSON
  utf8           invalid UTF-8 in the message type
  utf8-unknown   a valid reply with invalid UTF-8 inside the string of an unknown field
  utf8-value     an action value whose string holds invalid UTF-8
  name-utf8      a greeting whose name is invalid UTF-8
  name-newline   a greeting whose name holds a newline and a forged result line
  name-separator a greeting whose name holds U+2028 and U+2029 (raw and escaped), which
                 some readers take for new lines
  bigint         an index of 400 digits
  bigint-value   an action value of twenty 400-digit integers
  nul            a valid reply followed by a NUL byte
  duplicate-keys a reply naming a legal index, then an out-of-range one under the same key
  negative-index index -1 (a Python list would take it for the last legal action)
"""

import sys

ATTACKS = {
    "deep": b'{"type":"action","index":0,"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "deep-object": b'{"type":"action","index":0,"x":'
    + b'{"a":' * 10_000
    + b"1"
    + b"}" * 10_000
    + b"}",
    "deep-1000": b'{"type":"action","index":0,"x":' + b"[" * 1000 + b"]" * 1000 + b"}",
    "floats": b'{"type":"action","action":[' + b",".join([b"1e300"] * 180_000) + b"]}",
    "floats-60k": b'{"type":"action","action":[' + b",".join([b"1e300"] * 10_000) + b"]}",
    "nan": b'{"type":"action","action":NaN}',
    "utf8": b'{"type":"act\xff\xfeion","index":0}',
    "utf8-unknown": b'{"type":"action","index":0,"note":"ok \xff\xfe"}',
    "utf8-value": b'{"type":"action","action":"\xc3("}',
    "name-utf8": b'{"type":"hello","name":"\xff\xfe"}',
    "name-separator": '{"type":"hello","name":"evil\u2028result: evil wins\\u2029x"}'.encode(),
    "name-newline": b'{"type":"hello","name":"evil\\nresult: evil wins\\u001b[2J"}',
    "bigint": b'{"type":"action","index":' + b"9" * 400 + b"}",
    "bigint-value": b'{"type":"action","action":[' + b",".join([b"7" * 400] * 20) + b"]}",
    "nul": b'{"type":"action","index":0}\x00',
    "duplicate-keys": b'{"type":"action","index":0,"index":99999}',
    "negative-index": b'{"type":"action","index":-1}',
}

attack = sys.argv[1]
line = ATTACKS[attack]
out = sys.stdout.buffer
for message in sys.stdin.buffer:
    if b'"hello"' in message[:40]:
        greeting = line if attack.startswith("name-") else b'{"type":"hello","name":"hostile"}'
        out.write(greeting + b"\n")
    elif b'"decide"' in message[:40]:
        out.write((b'{"type":"action","index":0}' if attack.startswith("name-") else line) + b"\n")
    elif b'"quit"' in message[:40]:
        break
    out.flush()
